/// Direct form I biquad loops in double precision, in place over float samples.
///
/// Direct form I keeps past inputs and outputs as its state, which do not depend on the
/// coefficients, so coefficients can move while a signal plays without the transients a
/// transposed form throws off. A channel's state is (x1, x2, y1, y2) at `state`,
/// `state + stride`, `state + 2·stride`, `state + 3·stride`. Thread: audio.
enum BiquadKernels {
    /// One channel.
    @inline(__always)
    static func run(_ c: BiquadCoefficients, state: UnsafeMutablePointer<Double>, stride: Int, samples: UnsafeMutablePointer<Float>, count: Int) {
        var x1 = state[0], x2 = state[stride], y1 = state[2 * stride], y2 = state[3 * stride]
        let (b0, b1, b2, a1, a2) = (c.b0, c.b1, c.b2, c.a1, c.a2)
        for frame in 0..<count {
            let x = Double(samples[frame])
            let y = (b0 * x + b1 * x1 + b2 * x2 - a2 * y2) - a1 * y1
            x2 = x1; x1 = x; y2 = y1; y1 = y
            samples[frame] = Float(y)
        }
        state[0] = x1; state[stride] = x2; state[2 * stride] = y1; state[3 * stride] = y2
    }

    /// Two channels in one vector register; `state` holds (x1, x2, y1, y2) as pairs.
    @inline(__always)
    static func runPair(_ c: BiquadCoefficients, state: UnsafeMutablePointer<Double>, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, count: Int) {
        var x1 = SIMD2(state[0], state[1]), x2 = SIMD2(state[2], state[3])
        var y1 = SIMD2(state[4], state[5]), y2 = SIMD2(state[6], state[7])
        let b0 = SIMD2(repeating: c.b0), b1 = SIMD2(repeating: c.b1), b2 = SIMD2(repeating: c.b2)
        let a1 = SIMD2(repeating: c.a1), a2 = SIMD2(repeating: c.a2)
        for frame in 0..<count {
            let x = SIMD2(Double(left[frame]), Double(right[frame]))
            let y = (b0 * x + b1 * x1 + b2 * x2 - a2 * y2) - a1 * y1
            x2 = x1; x1 = x; y2 = y1; y1 = y
            left[frame] = Float(y.x)
            right[frame] = Float(y.y)
        }
        store(x1, x2, y1, y2, into: state)
    }

    @inline(__always)
    private static func store(_ x1: SIMD2<Double>, _ x2: SIMD2<Double>, _ y1: SIMD2<Double>, _ y2: SIMD2<Double>, into state: UnsafeMutablePointer<Double>) {
        state[0] = x1.x; state[1] = x1.y; state[2] = x2.x; state[3] = x2.y
        state[4] = y1.x; state[5] = y1.y; state[6] = y2.x; state[7] = y2.y
    }

    /// Three sections in series on two channels, fused so the sections overlap in the
    /// pipeline instead of waiting on one another. The sums are grouped so that only one
    /// multiply and one subtraction wait on each section's previous output.
    @inline(__always)
    static func runPair3(
        _ c0: BiquadCoefficients, _ c1: BiquadCoefficients, _ c2: BiquadCoefficients,
        states: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>),
        left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, count: Int
    ) {
        let (sp, sq, sr) = states
        var px1 = SIMD2(sp[0], sp[1]), px2 = SIMD2(sp[2], sp[3]), py1 = SIMD2(sp[4], sp[5]), py2 = SIMD2(sp[6], sp[7])
        var qy1 = SIMD2(sq[4], sq[5]), qy2 = SIMD2(sq[6], sq[7])
        var ry1 = SIMD2(sr[4], sr[5]), ry2 = SIMD2(sr[6], sr[7])
        let pb0 = SIMD2(repeating: c0.b0), pb1 = SIMD2(repeating: c0.b1), pb2 = SIMD2(repeating: c0.b2), pa1 = SIMD2(repeating: c0.a1), pa2 = SIMD2(repeating: c0.a2)
        let qb0 = SIMD2(repeating: c1.b0), qb1 = SIMD2(repeating: c1.b1), qb2 = SIMD2(repeating: c1.b2), qa1 = SIMD2(repeating: c1.a1), qa2 = SIMD2(repeating: c1.a2)
        let rb0 = SIMD2(repeating: c2.b0), rb1 = SIMD2(repeating: c2.b1), rb2 = SIMD2(repeating: c2.b2), ra1 = SIMD2(repeating: c2.a1), ra2 = SIMD2(repeating: c2.a2)
        for frame in 0..<count {
            let x = SIMD2(Double(left[frame]), Double(right[frame]))
            // Each section's input history is the previous section's output history.
            let y = (pb0 * x + pb1 * px1 + pb2 * px2 - pa2 * py2) - pa1 * py1
            let z = (qb0 * y + (qb1 * py1 + qb2 * py2 - qa2 * qy2)) - qa1 * qy1
            let w = (rb0 * z + (rb1 * qy1 + rb2 * qy2 - ra2 * ry2)) - ra1 * ry1
            px2 = px1; px1 = x; py2 = py1; py1 = y
            qy2 = qy1; qy1 = z; ry2 = ry1; ry1 = w
            left[frame] = Float(w.x)
            right[frame] = Float(w.y)
        }
        store(px1, px2, py1, py2, into: sp)
        store(py1, py2, qy1, qy2, into: sq)
        store(qy1, qy2, ry1, ry2, into: sr)
    }

    /// One channel, blended with its input: out = x + wet·(H(x) - x), `wet` moving
    /// linearly from `start` by `step` per frame. Used while a band fades in or out.
    @inline(__always)
    static func runBlended(_ c: BiquadCoefficients, state: UnsafeMutablePointer<Double>, stride: Int, samples: UnsafeMutablePointer<Float>, count: Int, start: Double, step: Double) {
        var x1 = state[0], x2 = state[stride], y1 = state[2 * stride], y2 = state[3 * stride]
        for frame in 0..<count {
            let x = Double(samples[frame])
            let y = (c.b0 * x + c.b1 * x1 + c.b2 * x2 - c.a2 * y2) - c.a1 * y1
            x2 = x1; x1 = x; y2 = y1; y1 = y
            let wet = start + step * Double(frame + 1)
            samples[frame] = Float(x + wet * (y - x))
        }
        state[0] = x1; state[stride] = x2; state[2 * stride] = y1; state[3 * stride] = y2
    }
}
