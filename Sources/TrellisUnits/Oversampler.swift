import Glibc
import TrellisCore

/// Taps of a linear-phase half-band low-pass (cutoff a quarter of its rate), a Kaiser-
/// windowed sinc with `count` taps (odd) and the window's β. Every other tap but the
/// centre is zero. Thread: any (allocates an array).
func halfbandTaps(count: Int, beta: Double) -> [Double] {
    func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }
    let centre = (count - 1) / 2
    return (0..<count).map { index in
        let m = Double(index - centre)
        let ideal = m == 0 ? 0.5 : sin(Double.pi * m / 2) / (Double.pi * m)
        let ratio = m / Double(centre)
        return ideal * besselI0(beta * (1 - ratio * ratio).squareRoot()) / besselI0(beta)
    }
}

/// The nonzero taps of one phase of a polyphase filter: (history offset, coefficient).
struct PhaseTaps {
    let offsets: UnsafeMutablePointer<Int>
    let coefficients: UnsafeMutablePointer<Float>
    let count: Int
}

/// One 2× stage, up and down, for one channel: a half-band FIR run as two phases over a
/// history ring, so only nonzero taps are multiplied. Up: each input gives two outputs.
/// Down: each two inputs give one output. Both delay by (taps − 1) / 2 samples of the
/// fast rate. Plain memory, owned by the `Oversampler` that made it. Thread: audio.
struct HalfbandStage {
    /// Up: the phases making outputs 0 and 1 from the slow history (taps doubled).
    let upPhases: (PhaseTaps, PhaseTaps)
    /// Down: every nonzero tap over the fast history.
    let downTaps: PhaseTaps
    let upHistory: UnsafeMutablePointer<Float>
    let downHistory: UnsafeMutablePointer<Float>
    let upMask: Int
    let downMask: Int
    var upPosition = 0
    var downPosition = 0

    /// Pushes one slow sample; writes two fast ones.
    @inline(__always)
    mutating func up(_ x: Float, into output: UnsafeMutablePointer<Float>) {
        upPosition = (upPosition &+ 1) & upMask
        upHistory[upPosition] = x
        output[0] = Self.apply(upPhases.0, upHistory, upPosition, upMask)
        output[1] = Self.apply(upPhases.1, upHistory, upPosition, upMask)
    }

    /// Pushes two fast samples; returns one slow one, filtered at the first of them (so
    /// that up and down together delay by a whole number of slow samples).
    @inline(__always)
    mutating func down(_ input: UnsafePointer<Float>) -> Float {
        downPosition = (downPosition &+ 1) & downMask
        downHistory[downPosition] = input[0]
        let output = Self.apply(downTaps, downHistory, downPosition, downMask)
        downPosition = (downPosition &+ 1) & downMask
        downHistory[downPosition] = input[1]
        return output
    }

    @inline(__always)
    static func apply(_ taps: PhaseTaps, _ history: UnsafeMutablePointer<Float>, _ position: Int, _ mask: Int) -> Float {
        var sum: Float = 0
        for index in 0..<taps.count {
            sum += taps.coefficients[index] * history[(position &- taps.offsets[index]) & mask]
        }
        return sum
    }

    mutating func reset() {
        upHistory.update(repeating: 0, count: upMask + 1)
        downHistory.update(repeating: 0, count: downMask + 1)
    }
}

/// 8× oversampling for one channel in three half-band stages. The first (next to the
/// base rate) is steep: it passes 0–0.479 of the base rate and stops from 0.521 by 95 dB;
/// the two faster stages only keep their images out of that band. Up and down together
/// delay by `latency` base-rate frames.
/// Thread: made and freed on the control side; run on the audio thread.
struct Oversampler {
    static let factor = 8
    /// Tap counts: 293 at 2×, 25 at 4×, 17 at 8×; (n − 1) is divisible by 2, 4 and 8, so
    /// the round trip is a whole number of base frames.
    static let tapCounts = (293, 25, 17)
    static let beta = 9.51
    static var latency: Int { (tapCounts.0 - 1) / 2 + (tapCounts.1 - 1) / 4 + (tapCounts.2 - 1) / 8 }

    var stages: (HalfbandStage, HalfbandStage, HalfbandStage)
    /// Scratch: 2 + 4 + 8 samples.
    let scratch: UnsafeMutablePointer<Float>

    /// One in `memory` (its kernel's). Thread: control.
    static func make(in memory: Arena) -> Oversampler {
        Oversampler(stages: (stage(taps: tapCounts.0, memory), stage(taps: tapCounts.1, memory), stage(taps: tapCounts.2, memory)),
                    scratch: memory.take(14))
    }

    private static func stage(taps count: Int, _ memory: Arena) -> HalfbandStage {
        let taps = halfbandTaps(count: count, beta: beta)
        func phase(_ pairs: [(Int, Double)]) -> PhaseTaps {
            let offsets = memory.take(pairs.count, of: Int.self)
            let coefficients = memory.take(pairs.count, of: Float.self)
            for (index, pair) in pairs.enumerated() {
                offsets[index] = pair.0
                coefficients[index] = Float(pair.1)
            }
            return PhaseTaps(offsets: offsets, coefficients: coefficients, count: pairs.count)
        }
        // Up: output 2n + p = 2 Σ h[2i + p] x[n − i].
        let up0 = stride(from: 0, to: count, by: 2).map { ($0 / 2, 2 * taps[$0]) }.filter { $0.1 != 0 }
        let up1 = stride(from: 1, to: count, by: 2).map { ($0 / 2, 2 * taps[$0]) }.filter { $0.1 != 0 }
        let down = (0..<count).map { ($0, taps[$0]) }.filter { $0.1 != 0 }
        func ring(_ size: Int) -> Int { var ring = 1; while ring < size { ring <<= 1 }; return ring }
        let upSize = ring(count / 2 + 2), downSize = ring(count + 2)
        var stage = HalfbandStage(
            upPhases: (phase(up0), phase(up1)), downTaps: phase(down),
            upHistory: memory.take(upSize), downHistory: memory.take(downSize),
            upMask: upSize - 1, downMask: downSize - 1)
        stage.reset()
        return stage
    }

    mutating func reset() {
        stages.0.reset()
        stages.1.reset()
        stages.2.reset()
    }

    /// Eight fast samples for one base-rate sample, written to `fast` (8 floats).
    @inline(__always)
    mutating func up(_ x: Float, into fast: UnsafeMutablePointer<Float>) {
        let two = scratch, four = scratch + 2
        stages.0.up(x, into: two)
        stages.1.up(two[0], into: four)
        stages.1.up(two[1], into: four + 2)
        for index in 0..<4 { stages.2.up(four[index], into: fast + 2 * index) }
    }

    /// One base-rate sample from eight fast ones.
    @inline(__always)
    mutating func down(_ fast: UnsafePointer<Float>) -> Float {
        let four = scratch + 6, two = scratch
        for index in 0..<4 { four[index] = stages.2.down(fast + 2 * index) }
        two[0] = stages.1.down(four)
        two[1] = stages.1.down(four + 2)
        return stages.0.down(two)
    }
}
