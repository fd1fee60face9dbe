import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Delay")
struct DelayTests {
    func makeDelay(time: Float, feedback: Float, mix: Float = 100) throws -> UnitHarness {
        let delay = Delay()
        try delay.setParameter(named: "time", time)
        try delay.setParameter(named: "feedback", feedback)
        try delay.setParameter(named: "mix", mix)
        return try UnitHarness(delay)
    }

    @Test("an impulse comes back at the set time with the set feedback decay", arguments: [Float(50), -70])
    func impulse(feedback: Float) throws {
        let harness = try makeDelay(time: 0.01, feedback: feedback)
        var impulse = Array(repeating: Float(0), count: 3000)
        impulse[0] = 1
        let output = harness.process([impulse, impulse])[0]
        let period = 480, gain = Double(feedback) / 100
        #expect(output[..<period].allSatisfy { $0 == 0 })
        #expect(output[period] == 1)
        #expect(output[(period + 1)..<(2 * period)].allSatisfy { $0 == 0 })
        for echo in 2...5 {
            let range = (echo * period)..<min(output.count, (echo + 1) * period)
            // The loop's low-pass has unity gain at DC, so each echo carries feedback^(k-1) of the energy sum.
            let sum = range.reduce(0.0) { $0 + Double(output[$1]) }
            #expect(abs(sum - pow(gain, Double(echo - 1))) < 1e-4, "echo \(echo)")
            let loudest = range.max { abs(output[$0]) < abs(output[$1]) }!
            #expect(loudest == echo * period, "echo \(echo) peaks at its time")
        }
    }

    @Test("at a mix of zero the input passes through unchanged")
    func dry() throws {
        let harness = try makeDelay(time: 0.1, feedback: 80, mix: 0)
        let input = sine(frequency: 440, sampleRate: 48_000, count: 9600)
        #expect(harness.process([input, input])[0] == input)
    }

    @Test("a change of delay time while rendering glides without a jump")
    func smoothTimeChange() throws {
        let harness = try makeDelay(time: 0.05, feedback: 0)
        let input = sine(frequency: 440, sampleRate: 48_000, count: 48_000)
        var output = harness.process([Array(input[..<9600]), Array(input[..<9600])])[0]
        harness.unit.applyParameterEvent(index: 1, value: 0.3, rampFrames: 0)
        output += harness.process([Array(input[9600...]), Array(input[9600...])])[0]
        let slope = 2 * Double.pi * 440 / 48_000
        let largestStep = zip(output[2400...].dropFirst(), output[2400...]).map { Double(abs($0 - $1)) }.max()!
        #expect(largestStep < slope * 1.6)
        // After the glide the output is the input 0.3 s late.
        // (0.3 is not exact in Float, so the delay is a thousandth of a frame long.)
        #expect(abs(output[40_000] - input[40_000 - 14_400]) < 1e-4)
    }

    @Test("rendering with parameter changes allocates nothing")
    func noAllocation() throws {
        let harness = try makeDelay(time: 0.2, feedback: 60, mix: 40)
        let signal = sine(frequency: 300, sampleRate: 48_000, count: 256)
        harness.fillInput(channel: 0, with: signal[...])
        harness.fillInput(channel: 1, with: signal[...])
        for _ in 0..<10 { harness.render(frames: 256) }
        let counts = countAllocations {
            for cycle in 0..<1000 {
                if cycle % 10 == 0 { harness.unit.applyParameterEvent(index: 1, value: Float(cycle % 7) * 0.1 + 0.01, rampFrames: 0) }
                harness.unit.applyParameterEvent(index: 3, value: Float(500 + cycle * 10), rampFrames: 0)
                harness.render(frames: 256)
            }
        }
        #expect(counts.allocations == 0)
        #expect(counts.frees == 0)
    }
}
