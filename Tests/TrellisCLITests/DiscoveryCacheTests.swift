import Foundation
import Testing
import TrellisTestSupport

/// `trellis units` and start-up read what discovery learned from a kept catalog, give
/// short names that never move, and mark plugins that cannot load.
@Suite("Discovery: the kept catalog, stable short names, plugins that cannot load")
struct DiscoveryCacheTests {
    /// An LV2 search path of its own, holding links to installed bundles, and cache and
    /// state folders of its own.
    struct Installation {
        let plugins: String
        let xdg = temporaryPath("xdg")

        /// A new search path holding links to `bundles`.
        init(_ bundles: [String]) throws {
            plugins = temporaryPath("lv2")
            try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
            for bundle in bundles { try install(bundle) }
        }

        /// The search path `folder`, as it is.
        init(folder: String) {
            plugins = folder
        }

        func install(_ bundle: String) throws {
            let name = URL(fileURLWithPath: bundle).lastPathComponent
            try FileManager.default.createSymbolicLink(atPath: plugins + "/" + name, withDestinationPath: bundle)
        }

        func remove(_ bundle: String) throws {
            try FileManager.default.removeItem(atPath: plugins + "/" + URL(fileURLWithPath: bundle).lastPathComponent)
        }

        var environment: [String: String] {
            ["LV2_PATH": plugins, "XDG_CACHE_HOME": xdg + "/cache", "XDG_STATE_HOME": xdg + "/state"]
        }

        /// `trellis units --origin lv2 --json`, as URI → entry.
        func units() throws -> [String: [String: String]] {
            let result = try trellis(["units", "--origin", "lv2", "--json"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            let entries = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: String]] ?? []
            return Dictionary(entries.map { ($0["uri"] ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        }

        /// The one catalog file the cache folder holds.
        func catalogFile() throws -> String {
            let folder = xdg + "/cache/trellis"
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("lv2-catalog-") }
            #expect(files.count == 1)
            return folder + "/" + (files.first ?? "")
        }
    }

    static let swhAmp = "http://plugin.org.uk/swh-plugins/amp"
    static let blopAmp = "http://drobilla.net/plugins/blop/amp"
    static let egAmp = "http://lv2plug.in/plugins/eg-amp"

    @Test("a short name stays with its plugin when another plugin with the same name is installed, and when it is removed")
    func shortNamesNeverMove() throws {
        let installed = try Installation(["/usr/lib/lv2/amp-swh.lv2"])
        #expect(try installed.units()[Self.swhAmp]?["name"] == "lv2-amp")

        // blop's amp sorts first by URI; a fresh scan would give it the bare name.
        try installed.install("/usr/lib/lv2/blop.lv2")
        let both = try installed.units()
        #expect(both[Self.swhAmp]?["name"] == "lv2-amp")
        #expect(both[Self.blopAmp]?["name"] == "lv2-amp-2")
        let info = try trellis(["info", "lv2-amp"], environment: installed.environment)
        #expect(info.status == 0 && info.stdout.contains(Self.swhAmp), "\(info.stdout)\(info.stderr)")

        try installed.remove("/usr/lib/lv2/amp-swh.lv2")
        #expect(try installed.units()[Self.blopAmp]?["name"] == "lv2-amp-2")
        let gone = try trellis(["info", "lv2-amp"], environment: installed.environment)
        #expect(gone.status != 0, "lv2-amp must not name blop's amp: \(gone.stdout)")
    }

    @Test("units reads the kept catalog instead of scanning, until a bundle is added")
    func catalogIsKeptUntilABundleChanges() throws {
        let installed = try Installation(["/usr/lib/lv2/eg-amp.lv2"])
        #expect(try installed.units()[Self.egAmp]?["displayName"] == "Simple Amplifier")

        // Only a run that reads the kept file can show a name written into it.
        let file = try installed.catalogFile()
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("\tSimple Amplifier\t"))
        try text.replacingOccurrences(of: "\tSimple Amplifier\t", with: "\tKept Amplifier\t")
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try installed.units()[Self.egAmp]?["displayName"] == "Kept Amplifier")

        try installed.install("/usr/lib/lv2/eg-fifths.lv2")
        let rescanned = try installed.units()
        #expect(rescanned[Self.egAmp]?["displayName"] == "Simple Amplifier")
        #expect(rescanned["http://lv2plug.in/plugins/eg-fifths"] != nil)
    }

    @Test("a chain names a plugin by its kept short name and renders through it")
    func chainByKeptShortName() throws {
        let installed = try Installation(["/usr/lib/lv2/eg-amp.lv2"])
        _ = try installed.units()
        let out = temporaryPath("amp.wav")
        let result = try trellis(["chain", "--duration", "0.5", "tone", "freq=1000", "amp=0.5", "!", "lv2-eg-amp", "gain=-6", "!", out], environment: installed.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try floats(out)
        let peak = samples.map { abs($0) }.max() ?? 0
        #expect(abs(peak - 0.5 * pow(10, -6.0 / 20)) < 0.01, "peak \(peak)")
    }

    @Test("a chain saved after naming a plugin by short name names it by URI in the session")
    func savedChainNamesPluginsByURI() throws {
        let installed = try Installation(["/usr/lib/lv2/eg-amp.lv2"])
        let session = temporaryPath("chain.yaml")
        let result = try trellis(
            ["chain", "--save", session, "--duration", "0.1", "tone", "!", "lv2-eg-amp", "gain=-3", "!", temporaryPath("out.wav")],
            environment: installed.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: session, encoding: .utf8)
        #expect(text.contains("lv2: \(Self.egAmp)"), "\(text)")
        #expect(!text.contains("lv2-eg-amp"))
    }

    @Test("units lists plugins that cannot load with the reason: a missing symbol, a feature not provided, a plugin its library lacks")
    func pluginsThatCannotLoadAreMarked() throws {
        let installed = Installation(folder: try TestPlugins.folder())
        let units = try installed.units()
        let unlinked = try #require(units[TestPlugins.unlinkedURI]?["problem"])
        #expect(unlinked.contains("undefined symbol: trellis_test_missing_symbol"), "\(unlinked)")
        let feature = try #require(units[TestPlugins.needsFeatureURI]?["problem"])
        #expect(feature == "needs features Trellis does not provide: http://example.org/trellis-test/no-such-feature")
        let unlisted = try #require(units[TestPlugins.notInLibraryURI]?["problem"])
        #expect(unlisted.hasSuffix("passthrough.so does not provide it"), "\(unlisted)")
        #expect(units[TestPlugins.loggerURI] != nil && units[TestPlugins.loggerURI]?["problem"] == nil)

        let table = try trellis(["units", "--origin", "lv2"], environment: installed.environment)
        let line = try #require(table.stdout.split(separator: "\n").first { $0.contains(TestPlugins.unlinkedURI) })
        #expect(line.contains("[cannot load: its library"))
    }

    /// Bundles written here, their libraries compiled with cc: one whose initialiser
    /// crashes, one whose initialiser never returns.
    @Test("a library that crashes when loaded and one that hangs are marked with why; the plugins beside them list as usual")
    func librariesThatCrashOrHangWhenLoaded() throws {
        let installed = try Installation(["/usr/lib/lv2/eg-amp.lv2"])
        for (name, body) in [("crashes", "*(volatile int *)0 = 1;"), ("hangs", "for (;;) pause();")] {
            let bundle = installed.plugins + "/trellis-\(name).lv2"
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            try """
                @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
                <http://example.org/trellis-test/\(name)> a lv2:Plugin ; lv2:binary <\(name).so> ; lv2:port [
                    a lv2:AudioPort, lv2:InputPort ; lv2:index 0 ; lv2:symbol "in" ; lv2:name "In" ] .
                """.write(toFile: bundle + "/manifest.ttl", atomically: true, encoding: .utf8)
            try """
                #include <signal.h>
                #include <unistd.h>
                __attribute__((constructor)) static void start(void) { \(body) }
                """.write(toFile: bundle + "/\(name).c", atomically: true, encoding: .utf8)
            #expect(try runTool("/usr/bin/cc", ["-shared", "-fPIC", "-o", bundle + "/\(name).so", bundle + "/\(name).c"]) == 0)
        }
        let units = try installed.units()
        let crashed = try #require(units["http://example.org/trellis-test/crashes"]?["problem"])
        #expect(crashed.hasSuffix("crashes.so crashes when loaded (signal 11)"), "\(crashed)")
        let hung = try #require(units["http://example.org/trellis-test/hangs"]?["problem"])
        #expect(hung.hasSuffix("hangs.so did not load within 10 s"), "\(hung)")
        #expect(units[Self.egAmp] != nil && units[Self.egAmp]?["problem"] == nil)
    }
}
