import Foundation

/// The frequency in `low...high` Hz where a Hann-windowed DTFT of `signal` peaks: a
/// 0.25 Hz scan, then 0.01 Hz steps around the best.
public func peakHertz(_ signal: ArraySlice<Float>, low: Double, high: Double, sampleRate: Double = 48_000) -> Double {
    let count = signal.count
    let windowed = signal.enumerated().map { Double($0.element) * (0.5 - 0.5 * cos(2 * Double.pi * Double($0.offset) / Double(count - 1))) }
    func power(_ frequency: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        var re = 0.0, im = 0.0
        for (index, sample) in windowed.enumerated() {
            re += sample * cos(w * Double(index))
            im -= sample * sin(w * Double(index))
        }
        return re * re + im * im
    }
    func best(from start: Double, to end: Double, by step: Double) -> Double {
        stride(from: start, through: end, by: step).max { power($0) < power($1) } ?? start
    }
    let coarse = best(from: low, to: high, by: 0.25)
    return best(from: max(low, coarse - 0.3), to: min(high, coarse + 0.3), by: 0.01)
}
