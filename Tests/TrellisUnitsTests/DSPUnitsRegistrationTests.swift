import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("DSP unit registration")
struct DSPUnitsRegistrationTests {
    @Test("every DSP unit is found by short name and by description, and makes a unit of that description")
    func lookups() throws {
        let registry = ComponentRegistry()
        try DSPUnits.register(into: registry)
        let expected = [
            ("mixer", "aumx:mcmx:trls"), ("mixer3d", "aumx:3dem:trls"), ("converter", "aufc:conv:trls"),
            ("eq", "aufx:nbeq:trls"), ("graphic-eq", "aufx:greq:trls"), ("ipod-eq", "aufx:ipeq:trls"),
            ("limiter", "aufx:lmtr:trls"), ("delay", "aufx:dely:trls"),
        ]
        for (name, description) in expected {
            let unit = try registry.instantiate(named: name)
            #expect(unit.componentDescription.description == description)
            #expect(try registry.component(named: description).shortName == name)
        }
    }

    @Test("every DSP unit initializes with its defaults and renders silence to silence", arguments: DSPUnits.components.map(\.shortName))
    func silence(name: String) throws {
        let registry = ComponentRegistry()
        try DSPUnits.register(into: registry)
        let unit = try #require(try registry.instantiate(named: name) as? AudioUnitBase)
        let harness = try UnitHarness(unit)
        for _ in 0..<4 {
            #expect(harness.render(frames: 512) == .ok)
            for channel in 0..<harness.outputs[0].channelCount {
                #expect(harness.output(channel: channel, frames: 512).allSatisfy { $0 == 0 })
            }
        }
    }
}
