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

    /// One channel's filter memories (transposed direct form II).
    struct State {
        var shelf1 = 0.0, shelf2 = 0.0, pass1 = 0.0, pass2 = 0.0
    }

    /// Filters `count` samples of `left` and `right` and returns each one's sum of
    /// squares. Two channels a loop: their recursions run side by side.
    @inline(__always)
    func sumOfSquares(_ left: UnsafePointer<Float>, _ right: UnsafePointer<Float>, count: Int,
                      states: UnsafeMutablePointer<State>) -> (Double, Double) {
        var l = states[0], r = states[1]
        var sumLeft = 0.0, sumRight = 0.0
        let b0 = shelf.b0, b1 = shelf.b1, b2 = shelf.b2, a1 = shelf.a1, a2 = shelf.a2
        let c1 = highPass.a1, c2 = highPass.a2
        var i = 0
        while i < count {
            let xl = Double(left[i]), xr = Double(right[i])
            let yl = b0 * xl + l.shelf1, yr = b0 * xr + r.shelf1
            l.shelf1 = b1 * xl - a1 * yl + l.shelf2
            r.shelf1 = b1 * xr - a1 * yr + r.shelf2
            l.shelf2 = b2 * xl - a2 * yl
            r.shelf2 = b2 * xr - a2 * yr
            let zl = yl + l.pass1, zr = yr + r.pass1
            l.pass1 = -2 * yl - c1 * zl + l.pass2
            r.pass1 = -2 * yr - c1 * zr + r.pass2
            l.pass2 = yl - c2 * zl
            r.pass2 = yr - c2 * zr
            sumLeft += zl * zl
            sumRight += zr * zr
            i += 1
        }
        // A decaying tail must not leave denormals behind to slow the meter down.
        states[0] = l.settled
        states[1] = r.settled
        return (sumLeft, sumRight)
    }
}

extension KWeighting.State {
    /// Zero once every memory is below 1e-30.
    var settled: Self {
        max(shelf1.magnitude, shelf2.magnitude, pass1.magnitude, pass2.magnitude) < 1e-30 ? Self() : self
    }
}
