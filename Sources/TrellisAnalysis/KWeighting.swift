import CTrellisLoudness
import Foundation

/// BS.1770-4's K-weighting: a high shelf (+4 dB above about 1.7 kHz) and a high pass
/// (about 38 Hz) in series, designed for any sample rate as libebur128 does, run in
/// double precision on two channels at once.
struct KWeighting {
    struct Biquad {
        var b0, b1, b2, a1, a2: Double
    }

    let shelf: Biquad
    let highPass: Biquad

    init(sampleRate: Double) {
        // The analogue prototypes behind BS.1770's 48 kHz coefficients.
        var k = tan(.pi * 1681.974450955533 / sampleRate)
        var q = 0.7071752369554196
        let vh = pow(10, 3.999843853973347 / 20)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1 + k / q + k * k
        shelf = Biquad(b0: (vh + vb * k / q + k * k) / a0, b1: 2 * (k * k - vh) / a0, b2: (vh - vb * k / q + k * k) / a0,
                       a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
        k = tan(.pi * 38.13547087602444 / sampleRate)
        q = 0.5003270373238773
        a0 = 1 + k / q + k * k
        highPass = Biquad(b0: 1, b1: -2, b2: 1, a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
    }

    /// One channel's filter memories (direct form I, newest first), as the C loop keeps them.
    struct State {
        var input1 = 0.0, input2 = 0.0, shelf1 = 0.0, shelf2 = 0.0, pass1 = 0.0, pass2 = 0.0
    }

    /// Filters `count` samples of `left` and `right` and returns each one's sum of
    /// squares; `states` holds the two channels' memories, left first.
    @inline(__always)
    func sumOfSquares(_ left: UnsafePointer<Float>, _ right: UnsafePointer<Float>, count: Int,
                      states: UnsafeMutablePointer<State>) -> (Double, Double) {
        let coefficients = (shelf.b0, shelf.b1, shelf.b2, shelf.a1, shelf.a2, highPass.a1, highPass.a2)
        var sums = (0.0, 0.0)
        withUnsafePointer(to: coefficients) { coefficients in
            withUnsafeMutablePointer(to: &sums) { sums in
                UnsafeMutableRawPointer(states).withMemoryRebound(to: Double.self, capacity: 12) { memories in
                    trellis_k_weighting_pair(left, right, Int32(count), UnsafeRawPointer(coefficients).assumingMemoryBound(to: Double.self),
                                             memories, UnsafeMutableRawPointer(sums).assumingMemoryBound(to: Double.self))
                }
            }
        }
        // A decaying tail must not leave denormals behind to slow the meter down.
        states[0] = states[0].settled
        states[1] = states[1].settled
        return sums
    }
}

extension KWeighting.State {
    /// Zero once every memory is below 1e-30.
    var settled: Self {
        max(input1.magnitude, input2.magnitude, shelf1.magnitude, shelf2.magnitude, pass1.magnitude, pass2.magnitude) < 1e-30 ? Self() : self
    }
}
