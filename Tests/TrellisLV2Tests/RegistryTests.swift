import Testing
import TrellisCore
@testable import TrellisLV2

@Suite("LV2 components in the registry")
struct RegistryTests {
    @Test("every installed plugin gets a distinct description")
    func descriptionsAreDistinct() {
        let registry = ComponentRegistry()
        let world = LV2World()
        let added = LV2Components.register(into: registry, world: world)
        #expect(added == world.pluginURIs.count)
        let descriptions = registry.components.map(\.componentDescription)
        #expect(Set(descriptions).count == descriptions.count)
        #expect(Set(registry.components.map { $0.shortName.lowercased() }).count == descriptions.count)
    }

    @Test("codes are the same in a second world and registry")
    func codesAreStable() {
        let first = ComponentRegistry(), second = ComponentRegistry()
        LV2Components.register(into: first, world: LV2World())
        LV2Components.register(into: second, world: LV2World())
        let a = Dictionary(uniqueKeysWithValues: first.components.map { ($0.uri!, $0.componentDescription) })
        let b = Dictionary(uniqueKeysWithValues: second.components.map { ($0.uri!, $0.componentDescription) })
        #expect(a == b)
    }

    @Test("a plugin resolved lazily by URI gets the code a full scan gives it")
    func lazyMatchesFull() throws {
        let full = ComponentRegistry()
        LV2Components.register(into: full, world: LV2World())
        let lazy = ComponentRegistry()
        LV2Components.addResolver(to: lazy, world: LV2World())
        for uri in [Fixture.amp, Fixture.epiano, "http://plugin.org.uk/swh-plugins/plate"] {
            let resolved = try lazy.component(named: "lv2:" + uri)
            #expect(resolved.componentDescription == full.components.first { $0.uri == uri }?.componentDescription)
        }
        #expect(lazy.components.count == 3)
    }

    @Test("types follow the LV2 class, and the ports for the bare class")
    func typesFollowClass() throws {
        let registry = ComponentRegistry()
        LV2Components.addResolver(to: registry, world: LV2World())
        let expected: [(String, FourCC)] = [
            (Fixture.amp, ComponentType.effect),
            (Fixture.epiano, ComponentType.instrument),
            ("http://lv2plug.in/plugins/eg-scope#Mono", ComponentType.analyser),
            ("http://plugin.org.uk/swh-plugins/analogueOsc", ComponentType.generator),
            (Fixture.fifths, ComponentType.midiProcessor),
            (Fixture.sampler, ComponentType.instrument),
        ]
        for (uri, type) in expected {
            #expect(try registry.component(named: uri).componentDescription.type == type, "\(uri)")
        }
    }

    @Test("the manufacturer comes from the URI's host")
    func manufacturerFromHost() {
        #expect(LV2ComponentCodes.manufacturer(uri: Fixture.epiano) == "drob")
        #expect(LV2ComponentCodes.manufacturer(uri: "http://plugin.org.uk/swh-plugins/amp") == "plug")
        #expect(LV2ComponentCodes.manufacturer(uri: "urn:zam:comp") == "zam_")
        #expect(LV2ComponentCodes.manufacturer(uri: "http://www.trls.org/x") == "trl_")
    }

    @Test("an unknown URI in the registry suggests installed plugins")
    func registrySuggests() {
        let registry = ComponentRegistry()
        LV2Components.addResolver(to: registry, world: LV2World())
        #expect {
            try registry.component(named: "lv2:http://lv2plug.in/plugins/eg-ampp")
        } throws: { error in
            "\(error)".contains(Fixture.amp)
        }
    }

    @Test("a short name finds a plugin and instantiates it")
    func shortName() throws {
        let registry = ComponentRegistry()
        LV2Components.addResolver(to: registry, world: LV2World())
        let unit = try registry.instantiate(named: "lv2-eg-amp")
        #expect((unit as? LV2PluginUnit)?.uri == Fixture.amp)
    }
}
