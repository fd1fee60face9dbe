import Testing
import TrellisCore
@testable import TrellisLV2

@Suite("The discovery catalog and the short-name table")
struct CatalogTests {
    @Test("a catalog written as text reads back equal, fields with tabs, newlines and backslashes included")
    func catalogTextRoundTrip() throws {
        let catalog = LV2Catalog(
            searchPath: "/a:/b",
            stamps: [.init(bundle: "/a/x.lv2/", text: "1 2 3")],
            entries: [
                .init(uri: "urn:b", name: "Tab\there, line\nthere, slash \\", type: ComponentType.effect,
                      bundles: ["/a/x.lv2/", "/b/presets.lv2/"], problem: "needs\tmore"),
                .init(uri: "urn:a", name: "Plain", type: ComponentType.instrument, bundles: [], problem: nil),
            ])
        let read = try #require(LV2Catalog(text: catalog.text))
        #expect(read == catalog)
        #expect(read.entries.map(\.uri) == ["urn:a", "urn:b"])
    }

    @Test("a catalog file of another version or with a damaged line is no catalog")
    func damagedCatalogIsRefused() {
        #expect(LV2Catalog(text: "trellis-lv2-catalog 0\npath\t/a\n") == nil)
        #expect(LV2Catalog(text: "trellis-lv2-catalog 1\npath\t/a\nplugin\turn:a\taufx\n") == nil)
        #expect(LV2Catalog(text: "trellis-lv2-catalog 1\nbundle\t/a/\npath\t/a\n") == nil)
        #expect(LV2Catalog(text: "") == nil)
    }

    @Test("names are given in URI order and never taken back or handed on")
    func namesStay() {
        var names = LV2ShortNames()
        names.assign(["http://b.org/amp", "http://a.org/x/amp"])
        #expect(names.name(uri: "http://a.org/x/amp") == "lv2-amp")
        #expect(names.name(uri: "http://b.org/amp") == "lv2-amp-2")
        names.assign(["http://0.org/amp"])
        #expect(names.name(uri: "http://0.org/amp") == "lv2-amp-3")
        #expect(names.uri(name: "LV2-AMP") == "http://a.org/x/amp")
        #expect(LV2ShortNames(text: names.text) == names)
    }

    @Test("a manifest's mentioned URIs are those written in full and those written through its prefixes")
    func manifestMentions() {
        let manifest = """
            @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
            @prefix eg: <http://example.org/plugins/> .
            eg:amp a lv2:Plugin ; lv2:binary <amp.so> .
            <http://example.org/full> a lv2:Plugin .
            eg:amp-stereo.
            """
        let mentioned = LV2BundleIndex.mentionedURIs(in: manifest)
        for uri in ["http://example.org/plugins/amp", "http://example.org/full", "http://lv2plug.in/ns/lv2core#Plugin", "http://example.org/plugins/amp-stereo"] {
            #expect(mentioned.contains(uri), "\(uri)")
        }
        #expect(!mentioned.contains("http://example.org/plugins/amp-stereo."))
    }
}
