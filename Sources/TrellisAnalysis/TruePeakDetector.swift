import CTrellisLoudness
import Foundation

/// The largest inter-sample peak of one channel, as BS.1770-4 annex 2 measures it: the
/// signal oversampled (4x below 96 kHz, 2x below 192 kHz) by a 49-tap Hann-windowed
/// sinc interpolator (libebur128's design), and its largest magnitude kept.
///
/// Owns its memory; thread: one at a time.
struct TruePeakDetector {
    let factor: Int
    let tapsPerPhase: Int
    /// `coefficients[(phase - 1) * tapsPerPhase + k]` weighs the input `k` samples back;
    /// phase 0 is the sample itself.
    private let coefficients: [Float]
    /// The last `tapsPerPhase - 1` inputs, then room for the start of a block.
    private var line: [Float]
    private(set) var peak: Float = 0
    /// The largest sum of one branch's tap magnitudes, and of those outside its four
    /// central taps, with room for rounding: bounds that let most blocks go without
    /// interpolating (`trellis_true_peak`).
    private let reach: Float
    private let outerReach: Float

    init(sampleRate: Double) {
        factor = sampleRate < 96_000 ? 4 : sampleRate < 192_000 ? 2 : 1
        tapsPerPhase = 48 / factor
        let length = 49, centre = Double(length - 1) / 2
        var taps = [Float]()
        for phase in 1..<max(1, factor) {
            for k in 0..<tapsPerPhase {
                let j = Double(phase + factor * k), t = (j - centre) / Double(factor)
                let sinc = sin(.pi * t) / (.pi * t)
                let window = 0.5 * (1 - cos(2 * .pi * j / Double(length - 1)))
                taps.append(Float(sinc * window))
            }
        }
        coefficients = taps
        let branch = tapsPerPhase, middle = branch / 2 - 2
        var all: Float = 0, outer: Float = 0
        for phase in 0..<max(0, factor - 1) {
            let magnitudes = taps[phase * branch..<(phase + 1) * branch].map(\.magnitude)
            let sum = magnitudes.reduce(0, +)
            all = max(all, sum)
            outer = max(outer, sum - magnitudes.dropFirst(middle).prefix(4).reduce(0, +))
        }
        reach = all * 1.0001
        outerReach = outer * 1.0001 + 0.0001
        line = [Float](repeating: 0, count: 2 * (48 / factor - 1))
    }

    /// How far the interpolated samples lag the input, in input samples.
    var delay: Int { factor > 1 ? 24 / factor : 0 }

    mutating func reset() {
        peak = 0
        for i in line.indices { line[i] = 0 }
    }

    /// Adds `count` samples.
    mutating func add(_ samples: UnsafePointer<Float>, count: Int) {
        let history = tapsPerPhase - 1, head = min(count, history)
        let (phases, taps, gain, outer) = (Int32(factor - 1), Int32(tapsPerPhase), reach, outerReach)
        var peak = peak
        line.withUnsafeMutableBufferPointer { line in
            coefficients.withUnsafeBufferPointer { coefficients in
                let coefficients = coefficients.baseAddress!, memory = line.baseAddress!
                // The first outputs reach back into the last block, kept in `line`; the
                // rest have their history in `samples` itself.
                (memory + history).update(from: samples, count: head)
                peak = trellis_true_peak(memory + history, Int32(head), coefficients, phases, taps, gain, outer, peak)
                if count > head {
                    peak = trellis_true_peak(samples + head, Int32(count - head), coefficients, phases, taps, gain, outer, peak)
                    memory.update(from: samples + count - history, count: history)
                } else {
                    memmove(memory, memory + count, history * MemoryLayout<Float>.stride)
                }
            }
        }
        self.peak = peak
    }

    /// Writes the true-peak envelope of `count` samples into `magnitudes`: entry n is
    /// the largest magnitude, input sample or interpolated, around input sample n - delay.
    mutating func envelope(_ samples: UnsafePointer<Float>, count: Int, into magnitudes: UnsafeMutablePointer<Float>) {
        let history = tapsPerPhase - 1
        if line.count < history + count { line.append(contentsOf: repeatElement(0, count: history + count - line.count)) }
        let delay = delay
        line.withUnsafeMutableBufferPointer { line in
            let input = line.baseAddress! + history
            input.update(from: samples, count: count)
            for n in 0..<count { magnitudes[n] = input[n - delay].magnitude }
            coefficients.withUnsafeBufferPointer { taps in
                for phase in 0..<(factor - 1) {
                    trellis_interpolated_magnitudes(input, Int32(count), taps.baseAddress! + phase * tapsPerPhase, Int32(tapsPerPhase), magnitudes)
                }
            }
            memmove(line.baseAddress!, line.baseAddress! + count, history * MemoryLayout<Float>.stride)
        }
    }
}
