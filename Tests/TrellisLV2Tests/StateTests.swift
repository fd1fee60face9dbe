import Foundation
import Testing
import TrellisCore
@testable import TrellisLV2

@Suite("LV2 state and presets")
struct StateTests {
    @Test("a saved state brings a changed parameter back")
    func stateRoundTrip() throws {
        let unit = try makeUnit(Fixture.epiano)
        try unit.initialize()
        try unit.setParameter(named: "hardness", 0.9)
        let saved = try unit.saveState()
        #expect(saved.contains("hardness"))
        try unit.setParameter(named: "hardness", 0.1)
        try unit.restoreState(saved)
        #expect(abs(try unit.parameterValue(try unit.parameter(named: "hardness").address) - 0.9) < 1e-6)
    }

    @Test("a state given before initialize is applied, and kept across re-initialization")
    func stateBeforeInitialize() throws {
        let source = try makeUnit(Fixture.amp)
        try source.initialize()
        try source.setParameter(named: "gain", -12)
        let saved = try source.saveState()

        let unit = try makeUnit(Fixture.amp)
        try unit.restoreState(saved)
        try unit.initialize()
        #expect(try unit.parameterValue(ParameterAddress(0)) == -12)
        unit.uninitialize()
        try unit.initialize()
        var noise = Noise()
        let input = noise.samples(512)
        let output = OfflineRender(unit).process([input], frames: 512)[0]
        #expect(abs(output[100] - input[100] * powf(10, -12 / 20)) < 1e-6)
    }

    @Test("a state that is not Turtle is an error naming the plugin")
    func badStateText() throws {
        let unit = try makeUnit(Fixture.amp)
        try unit.initialize()
        #expect { try unit.restoreState("this is not turtle") } throws: { "\($0)".contains(Fixture.amp) }
    }

    @Test("applying a preset sets the values its Turtle file lists")
    func presetMatchesFile() throws {
        let unit = try makeUnit(Fixture.epiano)
        try unit.initialize()
        try unit.applyPreset(labelOrURI: "Bright")
        let expected = try presetValues(label: "Bright", file: "/usr/lib/lv2/mda.lv2/EPiano-presets.ttl")
        #expect(expected.count == 12)
        for (symbol, value) in expected {
            #expect(abs(try unit.parameterValue(try unit.parameter(named: symbol).address) - value) < 1e-6, "\(symbol)")
        }
    }

    @Test("a preset is also reachable as a factory preset by name")
    func factoryPresetProperty() throws {
        let unit = try makeUnit(Fixture.epiano)
        try unit.initialize()
        try unit.setProperty(.presentPreset, .string("mellow"), scope: .global, element: 0)
        let expected = try presetValues(label: "Mellow", file: "/usr/lib/lv2/mda.lv2/EPiano-presets.ttl")
        for (symbol, value) in expected {
            #expect(abs(try unit.parameterValue(try unit.parameter(named: symbol).address) - value) < 1e-6)
        }
    }

    @Test("an unknown preset lists the ones there are")
    func unknownPreset() throws {
        let unit = try makeUnit(Fixture.epiano)
        #expect { try unit.applyPreset(labelOrURI: "Shiny") } throws: { error in
            "\(error)".contains("Bright") && "\(error)".contains("Shiny")
        }
    }

    /// Reads `symbol`/`pset:value` pairs of one preset straight from its Turtle file.
    private func presetValues(label: String, file: String) throws -> [String: Float] {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let start = try #require(text.range(of: "rdfs:label \"\(label)\""))
        let rest = text[start.upperBound...]
        let block = rest[..<(rest.range(of: "\n\n")?.lowerBound ?? rest.endIndex)]
        var values: [String: Float] = [:]
        let pattern = try NSRegularExpression(pattern: #"lv2:symbol "([a-z_0-9]+)" ;\s*pset:value ([-0-9.eE]+)"#)
        let string = String(block)
        for match in pattern.matches(in: string, range: NSRange(string.startIndex..., in: string)) {
            let symbol = String(string[Range(match.range(at: 1), in: string)!])
            values[symbol] = Float(string[Range(match.range(at: 2), in: string)!])
        }
        return values
    }
}
