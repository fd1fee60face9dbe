import Foundation
import Testing
import TrellisCore
@testable import TrellisLV2

@Suite("LV2 discovery")
struct DiscoveryTests {
    @Test("loading everything finds exactly the plugins lv2ls lists")
    func loadAllMatchesLv2ls() throws {
        let world = LV2World()
        world.loadAll()
        let listed = try run("lv2ls", []).split(separator: "\n").map(String.init).sorted()
        #expect(!listed.isEmpty)
        #expect(world.pluginURIs == listed)
    }

    @Test("a search path given to the world replaces the default, as LV2_PATH does for lv2ls")
    func searchPathReplacesDefault() throws {
        let world = LV2World(path: Fixture.directory)
        world.loadAll()
        let listed = try run("lv2ls", [], environment: ["LV2_PATH": Fixture.directory]).split(separator: "\n").map(String.init).sorted()
        #expect(world.pluginURIs == listed)
        #expect(world.pluginURIs.allSatisfy { $0.hasPrefix("urn:trellis:fixtures:") })
    }

    @Test("loading one URI reads only the bundles that mention it")
    func loadOneURI() throws {
        let world = LV2World()
        try world.load(uri: Fixture.amp)
        #expect(world.pluginURIs == [Fixture.amp])
    }

    @Test("a plugin named through a manifest prefix is found on demand")
    func prefixedManifestEntry() throws {
        let world = LV2World()
        try world.load(uri: Fixture.epiano)
        #expect(world.pluginURIs.contains(Fixture.epiano))
        #expect(world.pluginURIs.allSatisfy { $0.hasPrefix("http://drobilla.net/plugins/mda/") })
    }

    @Test("an unknown URI is an error that suggests close matches")
    func unknownURISuggests() {
        let world = LV2World()
        #expect {
            try world.load(uri: "http://lv2plug.in/plugins/eg-ampp")
        } throws: { error in
            guard case LV2Error.unknownPlugin(_, let suggestions) = error else { return false }
            return suggestions.contains(Fixture.amp) && "\(error)".contains(Fixture.amp)
        }
    }

    @Test("the plugin description agrees with the plugin's Turtle data")
    func infoMatchesData() throws {
        let info = try LV2World().info(uri: Fixture.amp)
        #expect(info.name == "Simple Amplifier")
        #expect(info.className == "Amplifier")
        let gain = try #require(info.ports.first { $0.symbol == "gain" })
        #expect(gain.kind == .control && gain.direction == .input)
        #expect(gain.minimum == -90 && gain.maximum == 24 && gain.defaultValue == 0)
        #expect(gain.unit == "http://lv2plug.in/ns/extensions/units#db")
        #expect(gain.scalePoints.map(\.value) == [-10, -5, 0, 5])
        #expect(info.ports.map(\.symbol) == ["gain", "in", "out"])
        let json = try JSONEncoder().encode(info)
        #expect(try JSONDecoder().decode(LV2PluginInfo.self, from: json) == info)
        #expect(info.description.contains("gain"))
    }

    @Test("features and latency match what lv2info reports")
    func featuresMatchLv2info() throws {
        let world = LV2World()
        world.loadAll()
        for uri in [Fixture.sampler, "http://plugin.org.uk/swh-plugins/fastLookaheadLimiter"] {
            let info = try world.info(uri: uri)
            let text = try run("lv2info", [uri])
            #expect(text.contains("Has latency:       \(info.hasLatency ? "yes" : "no")"))
            for feature in info.requiredFeatures + info.optionalFeatures { #expect(text.contains(feature)) }
        }
    }

    @Test("presets listed match the plugin's preset data")
    func presetsListed() throws {
        let info = try LV2World().info(uri: Fixture.epiano)
        #expect(Set(info.presets.map(\.label)) == ["Default", "Bright", "Mellow", "Autopan", "Tremolo"])
    }
}
