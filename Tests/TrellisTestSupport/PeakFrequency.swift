import Foundation

/// The frequency in `low...high` Hz where a Hann-windowed DTFT of `signal` peaks: a
/// 0.25 Hz scan, then 0.01 Hz steps around the best. Each frequency's power is one
/// Goertzel pass over the windowed signal (the DTFT's squared magnitude, without a sine
/// and cosine per sample).
public func peakHertz(_ signal: ArraySlice<Float>, low: Double, high: Double, sampleRate: Double = 48_000) -> Double {
    let count = signal.count
    let windowed = signal.enumerated().map { Double($0.element) * (0.5 - 0.5 * cos(2 * Double.pi * Double($0.offset) / Double(count - 1))) }
    func power(_ frequency: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var previous = 0.0, beforePrevious = 0.0
        windowed.withUnsafeBufferPointer { samples in
            for sample in samples {
                let next = sample + coefficient * previous - beforePrevious
                beforePrevious = previous
                previous = next
            }
        }
        return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    }
    func best(from start: Double, to end: Double, by step: Double) -> Double {
        var best = start, most = -Double.infinity
        for frequency in stride(from: start, through: end, by: step) {
            let value = power(frequency)
            if value > most { (best, most) = (frequency, value) }
        }
        return best
    }
    let coarse = best(from: low, to: high, by: 0.25)
    return best(from: max(low, coarse - 0.3), to: min(high, coarse + 0.3), by: 0.01)
}
