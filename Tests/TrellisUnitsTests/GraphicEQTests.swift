import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Graphic EQ")
struct GraphicEQTests {
    func noise(_ count: Int) -> [Float] {
        var state: UInt64 = 12345
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: state) >> 40) / Float(1 << 23)
        }
    }

    @Test("a flat graphic EQ is transparent in both modes", arguments: [0, 1])
    func flatIsTransparent(mode: Int) throws {
        let eq = GraphicEQ()
        try eq.setParameter(named: "bands", Float(mode))
        let harness = try UnitHarness(eq)
        let input = noise(5000)
        let output = harness.process([input, input])
        #expect(output[0] == input && output[1] == input)
    }

    @Test("each 31-band slider shapes its third-octave as a peaking filter at the ISO centre")
    func thirdOctaveBand() throws {
        let eq = GraphicEQ()
        try eq.setParameter(named: "bands", 1)
        try eq.setParameter(named: "band17.gain", 9)
        let harness = try UnitHarness(eq, frameCapacity: 1024)
        for frequency in [500.0, 800, 1000, 1250, 2000] {
            let expected = AnalogPrototype.magnitude(.peaking, at: frequency, centre: 1000, gain: 9, q: Double(GraphicEQ.thirdOctaveQ), sampleRate: 48_000)
            #expect(abs(measuredGain(harness, frequency: frequency) - decibels(expected)) <= 0.05, "at \(frequency) Hz")
        }
    }

    @Test("the 10 bands sum as their octave peaking filters in series")
    func octaveBands() throws {
        let eq = GraphicEQ()
        let gains: [Double] = [3, -4, 6, 0, -2, 5, 1, -6, 2, 4]
        for (band, gain) in gains.enumerated() { try eq.setParameter(named: "band\(band).gain", Float(gain)) }
        let harness = try UnitHarness(eq, frameCapacity: 1024)
        for frequency in logSpaced(12, from: 25, to: 18_000) {
            let expected = zip(GraphicEQ.octaveCentres, gains).reduce(1.0) {
                $0 * AnalogPrototype.magnitude(.peaking, at: frequency, centre: Double($1.0), gain: $1.1, q: Double(GraphicEQ.octaveQ), sampleRate: 48_000)
            }
            #expect(abs(measuredGain(harness, frequency: frequency) - decibels(expected)) <= 0.05, "at \(frequency) Hz")
        }
    }

    @Test("the graphic EQ offers the iPod curves as factory presets")
    func presets() throws {
        let eq = GraphicEQ()
        #expect(eq.factoryPresets.map(\.name) == IPodEQ.curves.map(\.name))
        try eq.setProperty(.presentPreset, .string("Rock"), scope: .global, element: 0)
        let rock = IPodEQ.curves.first { $0.name == "Rock" }!.gains
        for band in 0..<10 { #expect(try eq.parameterValue(ParameterAddress(UInt32(band))) == rock[band]) }
    }
}

@Suite("Graphic EQ rendering")
struct GraphicEQRenderingTests {
    @Test("rendering while sliders move and the band count switches allocates nothing")
    func noAllocation() throws {
        let harness = try UnitHarness(GraphicEQ(), frameCapacity: 256)
        let signal = sine(frequency: 300, sampleRate: 48_000, count: 256)
        harness.fillInput(channel: 0, with: signal[...])
        harness.fillInput(channel: 1, with: signal[...])
        for _ in 0..<10 { harness.render(frames: 256) }
        let counts = countAllocations {
            for cycle in 0..<1000 {
                if cycle % 100 == 0 { harness.unit.applyParameterEvent(index: 0, value: Float(cycle / 100 % 2), rampFrames: 0) }
                harness.unit.applyParameterEvent(index: 1 + cycle % 31, value: Float(cycle % 13) - 6, rampFrames: 0)
                harness.render(frames: 256)
            }
        }
        #expect(counts.allocations == 0 && counts.frees == 0)
    }
}
