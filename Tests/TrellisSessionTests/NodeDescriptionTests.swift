import Testing
import TrellisCore
@testable import TrellisSession

@Suite("Node descriptions and the unit factory")
struct NodeDescriptionTests {
    @Test("in the name=value form, node keys set the node and other names set parameters, in order")
    func nodeKeysAndParameters() throws {
        let description = try NodeDescription(unit: "eq", settings: [
            ("band0.type", "peaking"), ("channels", "2"), ("bypass", "true"), ("preset", "Big Room"), ("band0.gain", "3"),
        ])
        #expect(description.channels == 2 && description.bypass == true && description.preset == "Big Room")
        #expect(description.parameters == [.init(name: "band0.type", value: "peaking"), .init(name: "band0.gain", value: "3")])
    }

    @Test("a name given twice in the name=value form is refused")
    func repeatedName() {
        #expect(throws: UnitFactoryError.repeatedSetting("gain")) {
            try NodeDescription(unit: "gain", settings: [("gain", "-6"), ("gain", "-3")])
        }
    }

    @Test("a bus count written as YAML 1.1 octal is refused with the reason")
    func octalCount() {
        #expect(throws: UnitFactoryError.invalidSetting(
            key: "inputs", text: "010", expected: "a whole number in 0...128",
            reason: "a leading zero makes YAML 1.1 read an octal number; write it without the zero")) {
            try NodeDescription(unit: "mixer", settings: [("inputs", "010")])
        }
    }

    @Test("the factory refuses yes for an on/off parameter and names what it takes")
    func yesForToggle() throws {
        let factory = UnitFactory(registry: testRegistry())
        #expect(throws: UnitFactoryError.invalidValue(parameter: "enabled", text: "yes", expected: "a value for enabled (on or off)", problem: .notANumber)) {
            try factory.make(NodeDescription(unit: "switch", parameters: [.init(name: "enabled", value: "yes")]))
        }
        let unit = try factory.make(NodeDescription(unit: "switch", parameters: [.init(name: "enabled", value: "true")]))
        #expect(try unit.parameterValue(ParameterAddress(0)) == 1)
    }

    @Test("a factory error in a session is placed at the key it is about")
    func errorPlacedAtItsKey() throws {
        let error = try #require(try loadError(replacing("gain1: gain", with: "gain1:\n    unit: gain\n    preset: Loud")))
        #expect(error.location.line == 9 && error.location.column == 13, "\(error)")
        #expect(error.message == "node \"gain1\": gain (aufx:gain:trls): no preset \"Loud\" (it has none)")
    }
}
