import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Parametric EQ")
struct ParametricEQTests {
    func makeEQ(type: FilterType, frequency: Float = 1000, gain: Float = 6, q: Float = 1.2) throws -> UnitHarness {
        let eq = ParametricEQ()
        try eq.setParameter(named: "band0.type", Float(type.rawValue))
        try eq.setParameter(named: "band0.freq", frequency)
        try eq.setParameter(named: "band0.gain", gain)
        try eq.setParameter(named: "band0.q", q)
        return try UnitHarness(eq, frameCapacity: 1024)
    }

    @Test("each filter type's measured magnitude at 30 frequencies matches its analytic response within 0.05 dB",
          arguments: FilterType.allCases)
    func response(type: FilterType) throws {
        let harness = try makeEQ(type: type)
        for frequency in logSpaced(30, from: 20, to: 20_000) {
            let expected = AnalogPrototype.magnitude(type, at: frequency, centre: 1000, gain: 6, q: 1.2, sampleRate: 48_000)
            let measured = measuredGain(harness, frequency: frequency)
            if expected > 1e-3 {
                #expect(abs(measured - decibels(expected)) <= 0.05, "\(type.name) at \(frequency) Hz: measured \(measured) dB, expected \(decibels(expected)) dB")
            } else {
                #expect(pow(10, measured / 20) <= 2e-3, "\(type.name) at \(frequency) Hz")
            }
        }
    }

    @Test("both channels of a stereo bus are filtered alike")
    func stereo() throws {
        let harness = try makeEQ(type: .peaking, gain: -9)
        let left = measuredGain(harness, frequency: 1000, channel: 0)
        let right = measuredGain(harness, frequency: 1000, channel: 1)
        #expect(abs(left - -9) < 0.05 && abs(right - -9) < 0.05)
    }

    @Test("buses of one and three channels are filtered like a stereo bus", arguments: [1, 3])
    func otherChannelCounts(channels: Int) throws {
        let eq = ParametricEQ()
        for scope in [Scope.input, .output] {
            try eq.setFormat(.canonical(sampleRate: 48_000, channelCount: channels), scope: scope, element: 0)
        }
        for band in 0..<4 {
            try eq.setParameter(named: "band\(band).freq", Float(250 << band))
            try eq.setParameter(named: "band\(band).gain", Float(band * 2) - 3)
        }
        let harness = try UnitHarness(eq, frameCapacity: 1024)
        for frequency in [100.0, 400, 1500, 5000] {
            let expected = (0..<4).reduce(1.0) {
                $0 * AnalogPrototype.magnitude(.peaking, at: frequency, centre: Double(250 << $1), gain: Double($1 * 2) - 3, q: 0.7071, sampleRate: 48_000)
            }
            for channel in 0..<channels {
                #expect(abs(measuredGain(harness, frequency: frequency, channel: channel) - decibels(expected)) <= 0.05, "channel \(channel) at \(frequency) Hz")
            }
        }
    }

    @Test("a bypassed band passes its input through unchanged")
    func bypass() throws {
        let eq = ParametricEQ()
        try eq.setParameter(named: "band0.type", Float(FilterType.lowPass.rawValue))
        try eq.setParameter(named: "band0.bypass", 1)
        let harness = try UnitHarness(eq)
        let input = sine(frequency: 5000, sampleRate: 48_000, count: 1000, amplitude: 0.7)
        #expect(harness.process([input, input])[0] == input)
    }

    @Test("the global gain scales the output")
    func globalGain() throws {
        let eq = ParametricEQ()
        try eq.setParameter(named: "gain", -6)
        let harness = try UnitHarness(eq)
        #expect(abs(measuredGain(harness, frequency: 440) - -6) < 0.01)
    }

    @Test("a band fed a step in frequency while rendering glides without a jump")
    func smoothFrequencyChange() throws {
        let harness = try makeEQ(type: .lowPass, frequency: 8000, q: 0.7071)
        let input = Array(repeating: Float(0.5), count: 4096)
        _ = harness.process([input, input])
        let index = try harness.unit.index(of: try harness.unit.parameter(named: "band0.freq").address)
        harness.unit.applyParameterEvent(index: index, value: 200, rampFrames: 0)
        let output = harness.process([input, input])[0]
        // DC passes a low-pass at any cutoff, so a smooth glide leaves a DC input untouched.
        #expect(output.allSatisfy { abs($0 - 0.5) < 1e-3 })
    }

    @Test("rendering while types, frequencies and bypasses change allocates nothing")
    func noAllocation() throws {
        let harness = try makeEQ(type: .peaking)
        for band in 1..<4 { try harness.unit.setParameter(named: "band\(band).gain", 3) }
        let type = try harness.unit.index(of: try harness.unit.parameter(named: "band0.type").address)
        let frequency = try harness.unit.index(of: try harness.unit.parameter(named: "band1.freq").address)
        let bypass = try harness.unit.index(of: try harness.unit.parameter(named: "band2.bypass").address)
        let signal = sine(frequency: 300, sampleRate: 48_000, count: 256)
        harness.fillInput(channel: 0, with: signal[...])
        harness.fillInput(channel: 1, with: signal[...])
        for _ in 0..<10 { harness.render(frames: 256) }
        let counts = countAllocations {
            for cycle in 0..<1000 {
                if cycle % 50 == 0 { harness.unit.applyParameterEvent(index: type, value: Float(cycle / 50 % 8), rampFrames: 0) }
                if cycle % 7 == 0 { harness.unit.applyParameterEvent(index: frequency, value: Float(100 + cycle), rampFrames: 512) }
                if cycle % 13 == 0 { harness.unit.applyParameterEvent(index: bypass, value: Float(cycle % 2), rampFrames: 0) }
                harness.render(frames: 256)
            }
        }
        #expect(counts.allocations == 0)
        #expect(counts.frees == 0)
    }
}
