import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Dynamics processor")
struct DynamicsProcessorTests {
    /// The documented static curve (docs/units.md), written out here on its own.
    static func documentedOutput(_ x: Double, threshold t: Double, ratio r: Double, knee w: Double,
                                 expansionThreshold te: Double, expansionRatio re: Double) -> Double {
        var y: Double
        if 2 * (x - t) < -w { y = x }
        else if 2 * abs(x - t) <= w { y = x + (1 / r - 1) * pow(x - t + w / 2, 2) / (2 * w) }
        else { y = t + (x - t) / r }
        if x < te { y -= (te - x) * (re - 1) }
        return y
    }

    /// A steady signal whose peak level is `decibels` on every sample: ±A alternating.
    static func steady(_ decibels: Double, count: Int) -> [Float] {
        let amplitude = Float(pow(10, decibels / 20))
        return (0..<count).map { $0 % 2 == 0 ? amplitude : -amplitude }
    }

    static func level(_ samples: ArraySlice<Float>) -> Double {
        20 * log10(Double(samples.map { abs($0) }.max()!))
    }

    @Test("the static curve, knee and expander included, is within 0.1 dB of the formula at 20 levels from −60 to 0 dBFS")
    func staticCurve() throws {
        for level in (0..<20).map({ -60 + Double($0) * 60 / 19 }) {
            let unit = DynamicsProcessor()
            for (name, value) in [("threshold", -30), ("ratio", 4), ("kneeWidth", 12), ("expansionThreshold", -50),
                                  ("expansionRatio", 2), ("attackTime", 0.001), ("releaseTime", 0.01)] as [(String, Float)] {
                try unit.setParameter(named: name, value)
            }
            let harness = try UnitHarness(unit)
            let signal = Self.steady(level, count: 9600)
            let output = harness.process([signal, signal])
            let expected = Self.documentedOutput(level, threshold: -30, ratio: 4, knee: 12, expansionThreshold: -50, expansionRatio: 2)
            #expect(abs(Self.level(output[0][8000...]) - expected) < 0.1, "input \(level) dB")
            #expect(abs(Self.level(output[1][8000...]) - expected) < 0.1, "input \(level) dB")
        }
    }

    @Test("with ratio 0, head room sets the ratio: a 0 dBFS input leaves at threshold + head room")
    func headRoomSetsRatio() throws {
        let unit = DynamicsProcessor()
        try unit.setParameter(named: "threshold", -24)
        try unit.setParameter(named: "headRoom", 6)
        let harness = try UnitHarness(unit)
        let output = harness.process([Self.steady(0, count: 9600), Self.steady(0, count: 9600)])
        #expect(abs(Self.level(output[0][8000...]) - -18) < 0.05)
        #expect(abs(unit.curve.ratio - 4) < 1e-9)
    }

    /// The reduction in dB, frame by frame, for a step from −40 to −10 dBFS (and back
    /// after `stepBack` frames) through a 20:1 curve at −30 dB.
    static func reductionAfterSteps(attack: Float, release: Float, stepBack: Int, count: Int) throws -> [Double] {
        let unit = DynamicsProcessor()
        for (name, value) in [("threshold", -30), ("ratio", 20), ("attackTime", attack), ("releaseTime", release),
                              ("expansionThreshold", -120)] as [(String, Float)] {
            try unit.setParameter(named: name, value)
        }
        let harness = try UnitHarness(unit)
        let signal = Self.steady(-40, count: 4800) + Self.steady(-10, count: stepBack) + Self.steady(-40, count: count - 4800 - stepBack)
        let output = harness.process([signal, signal])[0]
        return zip(signal, output).map { 20 * log10(Double(abs($0.0)) / Double(abs($0.1))) }
    }

    @Test("attack: the reduction reaches 63 % of a step in the attack time (±5 %)")
    func attackTimeConstant() throws {
        let reduction = try Self.reductionAfterSteps(attack: 0.01, release: 0.5, stepBack: 24_000, count: 30_000)
        let final = reduction[4800 + 20_000]
        #expect(abs(final - 19) < 0.01)
        let crossing = reduction[4800...].firstIndex { $0 >= 0.632 * final }! - 4800
        #expect(abs(Double(crossing) - 480) <= 0.05 * 480)
    }

    @Test("release: the reduction falls to 37 % of its depth in the release time (±5 %)")
    func releaseTimeConstant() throws {
        let reduction = try Self.reductionAfterSteps(attack: 0.001, release: 0.2, stepBack: 24_000, count: 48_000)
        let start = 4800 + 24_000
        let depth = reduction[start - 1]
        #expect(abs(depth - 19) < 0.01)
        let crossing = reduction[start...].firstIndex { $0 <= 0.368 * depth }! - start
        #expect(abs(Double(crossing) - 9600) <= 0.05 * 9600)
    }

    @Test("a side-chain key on input 1 sets the reduction; the main input's own level does not")
    func sidechainKeys() throws {
        let unit = DynamicsProcessor()
        for (name, value) in [("threshold", -30), ("ratio", 4), ("sidechain", 1)] as [(String, Float)] {
            try unit.setParameter(named: name, value)
        }
        let harness = try UnitHarness(unit)
        let main = Self.steady(-10, count: 9600)
        for channel in 0..<2 { harness.fillInput(bus: 1, channel: channel, with: Self.steady(-60, count: 512)[...]) }
        let quiet = harness.process([main, main])[0]
        #expect(abs(Self.level(quiet[8000...]) - -10) < 0.01)
        // Key at −10 dB: 20 dB over, reduced by 15 dB.
        for channel in 0..<2 { harness.fillInput(bus: 1, channel: channel, with: Self.steady(-10, count: 512)[...]) }
        let keyed = harness.process([main, main])[0]
        #expect(abs(Self.level(keyed[8000...]) - -25) < 0.05)
        #expect(abs(unit.values[12] - -15) < 0.05)
    }

    @Test("unlinked, each channel is reduced by its own level; linked, both by the louder")
    func stereoLink() throws {
        for linked in [false, true] {
            let unit = DynamicsProcessor()
            for (name, value) in [("threshold", -30), ("ratio", 2), ("stereoLink", linked ? 1 : 0)] as [(String, Float)] {
                try unit.setParameter(named: name, value)
            }
            let harness = try UnitHarness(unit)
            let output = harness.process([Self.steady(-10, count: 9600), Self.steady(-40, count: 9600)])
            #expect(abs(Self.level(output[0][8000...]) - -20) < 0.05)
            #expect(abs(Self.level(output[1][8000...]) - (linked ? -50 : -40)) < 0.05)
        }
    }

    @Test("the meters report input and output peaks and the gain reduction")
    func meters() throws {
        let unit = DynamicsProcessor()
        try unit.setParameter(named: "ratio", 2)
        let harness = try UnitHarness(unit)
        _ = harness.process([Self.steady(-6, count: 9600), Self.steady(-6, count: 9600)])
        #expect(abs(unit.values[13] - -6) < 0.01)
        #expect(abs(unit.values[14] - -13) < 0.05)
        #expect(abs(unit.values[12] - -7) < 0.05)
    }

    @Test("rendering allocates nothing")
    func noAllocation() throws {
        let harness = try UnitHarness(DynamicsProcessor())
        harness.fillInput(channel: 0, with: Self.steady(-3, count: 512)[...])
        harness.render(frames: 512)
        let counts = countAllocations { for _ in 0..<50 { harness.render(frames: 512) } }
        #expect(counts.allocations == 0 && counts.frees == 0)
    }

    @Test("an out-of-range parameter is refused with its range")
    func outOfRange() throws {
        let unit = DynamicsProcessor()
        #expect(throws: AudioUnitError.self) { try unit.setParameter(named: "ratio", 60) }
        do { try unit.setParameter(named: "threshold", -50) } catch { #expect("\(error)".contains("-40")) }
    }
}
