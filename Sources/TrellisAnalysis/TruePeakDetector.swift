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
    /// The last `tapsPerPhase - 1` inputs, then room for a block.
    private var line: [Float]
    private(set) var peak: Float = 0

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
        line = [Float](repeating: 0, count: 48 / factor - 1)
    }

    /// How far the interpolated samples lag the input, in input samples.
    var delay: Int { factor > 1 ? 24 / factor : 0 }

    mutating func reset() {
        peak = 0
        for i in line.indices { line[i] = 0 }
    }

    /// Adds `count` samples.
    mutating func add(_ samples: UnsafePointer<Float>, count: Int) {
        let history = tapsPerPhase - 1
        if line.count < history + count { line.append(contentsOf: repeatElement(0, count: history + count - line.count)) }
        var topBits: UInt32 = 0
        // Phase 0 is the sample itself. Magnitudes compare as their bit patterns.
        var i = 0
        while i < count {
            let bits = samples[i].bitPattern & 0x7fff_ffff
            if bits > topBits { topBits = bits }
            i &+= 1
        }
        line.withUnsafeMutableBufferPointer { line in
            let input = line.baseAddress! + history
            input.update(from: samples, count: count)
            coefficients.withUnsafeBufferPointer { taps in
                for phase in 0..<(factor - 1) {
                    let peak = trellis_interpolated_peak(input, Int32(count), taps.baseAddress! + phase * tapsPerPhase, Int32(tapsPerPhase))
                    topBits = max(topBits, peak.bitPattern)
                }
            }
            // Keep the newest inputs for the next block.
            memmove(line.baseAddress!, line.baseAddress! + count, history * MemoryLayout<Float>.stride)
        }
        peak = max(peak, Float(bitPattern: topBits))
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
