import Testing
@testable import TrellisAnalysis

/// The true-peak detector interpolates only the runs of samples that could raise its
/// peak; what it reads must equal interpolating every sample.
@Suite("True peak")
struct TruePeakTests {
    @Test("skipping the runs that cannot raise the peak reads what interpolating every sample reads", arguments: [44_100.0, 48_000, 96_000])
    func skippingIsExact(rate: Double) {
        var generator = SeededGenerator(seed: 41)
        var skipping = TruePeakDetector(sampleRate: rate), full = TruePeakDetector(sampleRate: rate)
        var fullPeak: Float = 0
        // Noise whose level steps up and down, with lone clicks and silences between.
        var level: Float = 0.01
        for block in 0..<400 {
            let count = Int.random(in: 1...1500, using: &generator)
            if block % 7 == 0 { level = Float.random(in: 0...0.9, using: &generator) }
            var samples = (0..<count).map { _ in level * Float.random(in: -1...1, using: &generator) }
            if block % 11 == 0 { samples[count / 2] = Float.random(in: -1...1, using: &generator) }
            if block % 13 == 0 { samples = Array(repeating: 0, count: count) }
            var envelope = [Float](repeating: 0, count: count)
            samples.withUnsafeBufferPointer { samples in
                skipping.add(samples.baseAddress!, count: count)
                envelope.withUnsafeMutableBufferPointer { full.envelope(samples.baseAddress!, count: count, into: $0.baseAddress!) }
            }
            // The envelope holds each sample `delay` outputs late; the detector reads samples at once.
            fullPeak = max(fullPeak, envelope.max()!, samples.map(\.magnitude).max()!)
            #expect(skipping.peak == fullPeak, "after block \(block)")
        }
    }
}
