import Testing
import TrellisCore
import TrellisUnits

@Suite("Component registry")
struct RegistryTests {
    let registry = BuiltInUnits.registry()

    @Test("a component is found by its exact description")
    func exactDescription() throws {
        let component = try registry.component(matching: ToneGenerator.componentDescription)
        #expect(component.shortName == "tone")
    }

    @Test("a component is found by short name, case-insensitively")
    func shortName() throws {
        #expect(try registry.component(named: "TONE").componentDescription == ToneGenerator.componentDescription)
        #expect(try registry.component(named: "Splitter").componentDescription == Splitter.componentDescription)
    }

    @Test("a component is found by its triple written as text")
    func tripleText() throws {
        #expect(try registry.component(named: "aufx:gain:trls").shortName == "gain")
    }

    @Test("a wildcard description finds every component it matches, in order")
    func wildcardQuery() throws {
        let outputs = registry.components(matching: ComponentDescription(type: ComponentType.output, subtype: .any, manufacturer: .any))
        #expect(outputs.map(\.shortName) == ["output", "input"])
        let trellis = registry.components(matching: ComponentDescription(type: .any, subtype: .any, manufacturer: Manufacturer.trellis))
        #expect(trellis.count == registry.components.count)
    }

    @Test("an unknown name fails with the closest names suggested")
    func unknownName() {
        #expect { try registry.component(named: "splitr") } throws: { "\($0)" == "no unit named \"splitr\" (did you mean splitter?)" }
    }

    @Test("an unknown description fails and suggests near descriptions")
    func unknownDescription() throws {
        #expect { try registry.component(matching: ComponentDescription("augn:tane:trls")) } throws: {
            "\($0)".contains("no unit matches augn:tane:trls") && "\($0)".contains("augn:tone:trls")
        }
    }

    @Test("registering a second component with the same description or name is refused")
    func duplicates() {
        let again = Component(description: ToneGenerator.componentDescription, shortName: "tone2", displayName: "Again") { ToneGenerator() }
        #expect { try registry.register(again) } throws: { "\($0)".contains("already registered as tone") }
        let sameName = Component(description: ComponentDescription(type: "augn", subtype: "tonx", manufacturer: "trls"), shortName: "Tone", displayName: "Again") { ToneGenerator() }
        #expect(throws: RegistryError.self) { try registry.register(sameName) }
    }

    @Test("instantiating makes a new unit each time")
    func instantiate() throws {
        let a = try registry.instantiate(named: "gain")
        let b = try registry.instantiate(named: "gain")
        #expect(a !== b)
        #expect(a.unitID != b.unitID)
    }

    @Test("a resolver supplies components the registry does not hold yet")
    func resolver() throws {
        let registry = BuiltInUnits.registry()
        registry.addResolver { key in
            key == "urn:example:late" ? Component(
                description: ComponentDescription(type: "aufx", subtype: "late", manufacturer: "exmp"),
                shortName: "late", displayName: "Late", origin: .lv2, uri: key) { Gain() } : nil
        }
        #expect(try registry.component(named: "lv2:urn:example:late").shortName == "late")
        #expect(try registry.component(named: "late").uri == "urn:example:late")
    }
}
