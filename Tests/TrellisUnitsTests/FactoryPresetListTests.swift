import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Factory preset list")
struct FactoryPresetListTests {
    let list = FactoryPresetList([
        ParameterPreset(name: "Slapback", values: ["time": 0.12, "feedback": 10, "mix": 35]),
        ParameterPreset(name: "Wash", values: ["time": 0.6, "feedback": 85, "mix": 50]),
    ])

    @Test("presets are listed by number in order")
    func listing() {
        #expect(list.presets == [Preset(number: 0, name: "Slapback"), Preset(number: 1, name: "Wash")])
    }

    @Test("applying a preset sets every parameter it names on any unit")
    func apply() throws {
        let delay = Delay()
        try list.apply(Preset(number: 1, name: "Wash"), to: delay)
        #expect(try delay.parameterValue(try delay.parameter(named: "time").address) == 0.6)
        #expect(try delay.parameterValue(try delay.parameter(named: "feedback").address) == 85)
        #expect(try delay.parameterValue(try delay.parameter(named: "mix").address) == 50)
    }

    @Test("a preset that is not in the list is refused, naming those that are")
    func unknown() {
        #expect(throws: AudioUnitError.invalidPreset("Hall", available: ["Slapback", "Wash"], unit: Delay().name)) {
            try list.apply(Preset(number: 7, name: "Hall"), to: Delay())
        }
    }
}
