import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("iPod EQ")
struct IPodEQTests {
    @Test("the iPod EQ lists the 22 presets by name and number")
    func presetList() {
        let names = ["Flat", "Acoustic", "Bass Booster", "Bass Reducer", "Classical", "Dance", "Deep", "Electronic",
                     "Hip-Hop", "Jazz", "Latin", "Loudness", "Lounge", "Piano", "Pop", "R&B", "Rock", "Small Speakers",
                     "Spoken Word", "Treble Booster", "Treble Reducer", "Vocal Booster"]
        let eq = IPodEQ()
        #expect(eq.factoryPresets.map(\.name) == names)
        #expect(eq.factoryPresets.map(\.number) == Array(0..<22))
    }

    @Test("each preset's measured response matches its documented curve within 0.05 dB",
          arguments: IPodEQ.curves.map(\.name))
    func curve(name: String) throws {
        let eq = IPodEQ()
        try eq.setProperty(.presentPreset, .string(name), scope: .global, element: 0)
        let gains = IPodEQ.curves.first { $0.name == name }!.gains
        let harness = try UnitHarness(eq, frameCapacity: 1024)
        for frequency in logSpaced(10, from: 25, to: 18_000) {
            let expected = zip(IPodEQ.bandFrequencies, gains).reduce(1.0) {
                $0 * AnalogPrototype.magnitude(.peaking, at: frequency, centre: Double($1.0), gain: Double($1.1), q: Double(IPodEQ.bandQ), sampleRate: 48_000)
            }
            #expect(abs(measuredGain(harness, frequency: frequency) - decibels(expected)) <= 0.05, "\(name) at \(frequency) Hz")
        }
    }

    @Test("a preset chosen by number is the same as by name")
    func presetByNumber() throws {
        let eq = IPodEQ()
        try eq.setProperty(.presentPreset, .string("16"), scope: .global, element: 0)
        #expect(try eq.property(.presentPreset, scope: .global, element: 0) == .string("Rock"))
        #expect(try eq.parameterValue(try eq.parameter(named: "preset").address) == 16)
    }

    @Test("an unknown preset is refused with the list of presets")
    func unknownPreset() {
        let eq = IPodEQ()
        #expect(throws: AudioUnitError.self) { try eq.setProperty(.presentPreset, .string("Polka"), scope: .global, element: 0) }
    }
}

@Suite("iPod EQ rendering")
struct IPodEQRenderingTests {
    @Test("rendering while the preset changes allocates nothing")
    func noAllocation() throws {
        let harness = try UnitHarness(IPodEQ(), frameCapacity: 256)
        let signal = sine(frequency: 300, sampleRate: 48_000, count: 256)
        harness.fillInput(channel: 0, with: signal[...])
        harness.fillInput(channel: 1, with: signal[...])
        for _ in 0..<10 { harness.render(frames: 256) }
        let counts = countAllocations {
            for cycle in 0..<1000 {
                if cycle % 20 == 0 { harness.unit.applyParameterEvent(index: 0, value: Float(cycle / 20 % 22), rampFrames: 0) }
                harness.render(frames: 256)
            }
        }
        #expect(counts.allocations == 0 && counts.frees == 0)
    }

    @Test("switching presets while playing glides instead of jumping")
    func smoothSwitch() throws {
        let harness = try UnitHarness(IPodEQ(), frameCapacity: 256)
        // DC passes every peaking band at unity, so any jump would show as a step away from it.
        let input = Array(repeating: Float(0.25), count: 4800)
        _ = harness.process([input, input])
        harness.unit.applyParameterEvent(index: 0, value: 11, rampFrames: 0)
        let output = harness.process([input, input])[0]
        #expect(output.allSatisfy { abs($0 - 0.25) < 0.25 * 0.03 })
    }
}
