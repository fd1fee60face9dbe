import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Peak limiter")
struct PeakLimiterTests {
    @Test("no output sample exceeds the ceiling on a signal with +12 dB peaks")
    func ceilingHolds() throws {
        let limiter = PeakLimiter()
        try limiter.setParameter(named: "ceiling", -1)
        try limiter.setParameter(named: "release", 20)
        let harness = try UnitHarness(limiter)
        // Music-like: a quiet sine with sudden +12 dBFS transients and a loud low tone.
        var signal = sine(frequency: 220, sampleRate: 48_000, count: 48_000, amplitude: 0.3)
        for start in stride(from: 1000, to: 48_000, by: 4000) {
            for n in 0..<200 { signal[start + n] += Float(3.7 * Glibc.sin(Double(n) * 0.7)) }
        }
        for n in 30_000..<40_000 { signal[n] = Float(4 * Glibc.sin(2 * Double.pi * 60 * Double(n) / 48_000)) }
        #expect(signal.map { abs($0) }.max()! >= 3.98)
        let ceiling = Float(pow(10, -1.0 / 20))
        let output = harness.process([signal, signal.map { -$0 * 0.5 }])
        #expect(output[0].allSatisfy { abs($0) <= ceiling })
        #expect(output[1].allSatisfy { abs($0) <= ceiling })
        #expect(output[0].map { abs($0) }.max()! > 0.95 * ceiling)
    }

    @Test("the reported latency equals the measured delay of an impulse")
    func latency() throws {
        let limiter = PeakLimiter()
        try limiter.setParameter(named: "attack", 3)
        let harness = try UnitHarness(limiter)
        var impulse = Array(repeating: Float(0), count: 2000)
        impulse[100] = 0.5
        let output = harness.process([impulse, impulse])[0]
        let measured = output.firstIndex { $0 != 0 }! - 100
        #expect(measured == limiter.latencyFrames)
        #expect(limiter.latencyFrames == 144)
        #expect(try limiter.property(.latency, scope: .global, element: 0) == .double(0.003))
        #expect(output[100 + measured] == 0.5)
    }

    @Test("a new attack while running changes the latency, and the delay follows it")
    func attackChangesLatency() throws {
        let limiter = PeakLimiter()
        try limiter.setParameter(named: "attack", 3)
        let harness = try UnitHarness(limiter)
        _ = harness.process([Array(repeating: 0, count: 512), Array(repeating: 0, count: 512)])
        try limiter.setParameter(named: "attack", 10)
        #expect(limiter.latencyFrames == 480)
        #expect(try limiter.property(.latency, scope: .global, element: 0) == .double(0.01))
        var impulse = Array(repeating: Float(0), count: 2000)
        impulse[100] = 0.5
        let output = harness.process([impulse, impulse])[0]
        #expect(output.firstIndex { $0 != 0 }! - 100 == 480)
        #expect(output[580] == 0.5)
    }

    @Test("after the attack shortens, peaks stay under the ceiling")
    func shorterAttackHoldsCeiling() throws {
        let limiter = PeakLimiter()
        try limiter.setParameter(named: "attack", 20)
        try limiter.setParameter(named: "ceiling", -1)
        let harness = try UnitHarness(limiter)
        let loud = sine(frequency: 220, sampleRate: 48_000, count: 4800, amplitude: 3)
        let ceiling = Float(pow(10, -1.0 / 20))
        #expect(harness.process([loud, loud])[0].allSatisfy { abs($0) <= ceiling })
        try limiter.setParameter(named: "attack", 1)
        #expect(limiter.latencyFrames == 48)
        #expect(harness.process([loud, loud])[0].allSatisfy { abs($0) <= ceiling })
    }

    @Test("below the ceiling the limiter only delays")
    func transparentBelowCeiling() throws {
        let harness = try UnitHarness(PeakLimiter())
        let input = sine(frequency: 1000, sampleRate: 48_000, count: 5000, amplitude: 0.8)
        let output = harness.process([input, input])[0]
        let delay = harness.unit.latencyFrames
        #expect(Array(output[delay...]) == Array(input[..<(5000 - delay)]))
    }

    @Test("a loud steady tone is brought down to the ceiling")
    func steadyReduction() throws {
        let limiter = PeakLimiter()
        try limiter.setParameter(named: "ceiling", -6)
        let harness = try UnitHarness(limiter)
        let input = sine(frequency: 1000, sampleRate: 48_000, count: 24_000, amplitude: 1)
        let output = harness.process([input, input])[0]
        let peak = Double(output[12_000...].map { abs($0) }.max()!)
        #expect(abs(decibels(peak) - -6) < 0.2)
        #expect(try limiter.parameterValue(try limiter.parameter(named: "reduction").address) < -5)
    }

    @Test("rendering with parameter changes allocates nothing")
    func noAllocation() throws {
        let harness = try UnitHarness(PeakLimiter())
        let signal = sine(frequency: 300, sampleRate: 48_000, count: 256, amplitude: 2)
        harness.fillInput(channel: 0, with: signal[...])
        harness.fillInput(channel: 1, with: signal[...])
        for _ in 0..<10 { harness.render(frames: 256) }
        let counts = countAllocations {
            for cycle in 0..<1000 {
                harness.unit.applyParameterEvent(index: 3, value: -Float(cycle % 12), rampFrames: 0)
                harness.unit.applyParameterEvent(index: 1, value: Float(10 + cycle % 100), rampFrames: 0)
                harness.render(frames: 256)
            }
        }
        #expect(counts.allocations == 0)
        #expect(counts.frees == 0)
    }
}
