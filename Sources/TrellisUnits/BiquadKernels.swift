/// Biquad loops in double precision, in place over float samples.
///
/// The state kept between calls is direct form I's: each section's last two inputs and
/// outputs (x1, x2, y1, y2). Those do not depend on the coefficients, so coefficients can
/// change between calls without the transients a transposed form's state would throw off.
/// Inside a call the coefficients are fixed, so the loops run the faster transposed
/// direct form II, entering from and leaving as the direct form I history. A channel's
/// state is at `state`, `state + stride`, `state + 2·stride`, `state + 3·stride`.
///
/// The transposed form's updates are written with y substituted out
/// (s1' = (b1 - a1·b0)·x + s2 - a1·s1, s2' = (b2 - a2·b0)·x - a2·s1), so the chain
/// from one frame's state to the next is one multiply and one add instead of four
/// dependent operations: the loops run at twice the rate. Thread: audio.
enum BiquadKernels {
    /// The transposed form's (s1, s2) that continue a direct form I history.
    @inline(__always)
    static func transposedState(_ c: BiquadCoefficients, x1: SIMD2<Double>, x2: SIMD2<Double>, y1: SIMD2<Double>, y2: SIMD2<Double>) -> (SIMD2<Double>, SIMD2<Double>) {
        let b1 = SIMD2(repeating: c.b1), b2 = SIMD2(repeating: c.b2), a1 = SIMD2(repeating: c.a1), a2 = SIMD2(repeating: c.a2)
        return (b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2, b2 * x1 - a2 * y1)
    }

    /// One channel.
    @inline(__always)
    static func run(_ c: BiquadCoefficients, state: UnsafeMutablePointer<Double>, stride: Int, samples: UnsafeMutablePointer<Float>, count: Int) {
        var x1 = state[0], x2 = state[stride], y1 = state[2 * stride], y2 = state[3 * stride]
        let (b0, b1, b2, a1, a2) = (c.b0, c.b1, c.b2, c.a1, c.a2)
        let (c1, c2) = (b1 - a1 * b0, b2 - a2 * b0)
        var s1 = b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2, s2 = b2 * x1 - a2 * y1
        for frame in 0..<count {
            let x = Double(samples[frame])
            let y = b0 * x + s1
            let previous = s1
            s1 = (c1 * x + s2) - a1 * previous
            s2 = c2 * x - a2 * previous
            x2 = x1; x1 = x; y2 = y1; y1 = y
            samples[frame] = Float(y)
        }
        state[0] = x1; state[stride] = x2; state[2 * stride] = y1; state[3 * stride] = y2
    }

    /// Three sections in series on one channel, fused as `runPair3` is, so the sections
    /// overlap in the pipeline: a mono cascade runs at the rate of a stereo one.
    @inline(__always)
    static func run3(
        _ c0: BiquadCoefficients, _ c1: BiquadCoefficients, _ c2: BiquadCoefficients,
        states: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>),
        stride: Int, samples: UnsafeMutablePointer<Float>, count: Int
    ) {
        let (sp, sq, sr) = states
        var x1 = sp[0], x2 = sp[stride], y1 = sp[2 * stride], y2 = sp[3 * stride]
        var z1 = sq[2 * stride], z2 = sq[3 * stride], w1 = sr[2 * stride], w2 = sr[3 * stride]
        var p1 = c0.b1 * x1 + c0.b2 * x2 - c0.a1 * y1 - c0.a2 * y2, p2 = c0.b2 * x1 - c0.a2 * y1
        var q1 = c1.b1 * y1 + c1.b2 * y2 - c1.a1 * z1 - c1.a2 * z2, q2 = c1.b2 * y1 - c1.a2 * z1
        var r1 = c2.b1 * z1 + c2.b2 * z2 - c2.a1 * w1 - c2.a2 * w2, r2 = c2.b2 * z1 - c2.a2 * w1
        let pc1 = c0.b1 - c0.a1 * c0.b0, pc2 = c0.b2 - c0.a2 * c0.b0
        let qc1 = c1.b1 - c1.a1 * c1.b0, qc2 = c1.b2 - c1.a2 * c1.b0
        let rc1 = c2.b1 - c2.a1 * c2.b0, rc2 = c2.b2 - c2.a2 * c2.b0
        for frame in 0..<count {
            let x = Double(samples[frame])
            let y = c0.b0 * x + p1
            let p = p1
            p1 = (pc1 * x + p2) - c0.a1 * p
            p2 = pc2 * x - c0.a2 * p
            let z = c1.b0 * y + q1
            let q = q1
            q1 = (qc1 * y + q2) - c1.a1 * q
            q2 = qc2 * y - c1.a2 * q
            let w = c2.b0 * z + r1
            let r = r1
            r1 = (rc1 * z + r2) - c2.a1 * r
            r2 = rc2 * z - c2.a2 * r
            x2 = x1; x1 = x; y2 = y1; y1 = y; z2 = z1; z1 = z; w2 = w1; w1 = w
            samples[frame] = Float(w)
        }
        sp[0] = x1; sp[stride] = x2; sp[2 * stride] = y1; sp[3 * stride] = y2
        sq[0] = y1; sq[stride] = y2; sq[2 * stride] = z1; sq[3 * stride] = z2
        sr[0] = z1; sr[stride] = z2; sr[2 * stride] = w1; sr[3 * stride] = w2
    }

    /// Two sections in series on one channel, fused as `run3` is.
    @inline(__always)
    static func run2(
        _ c0: BiquadCoefficients, _ c1: BiquadCoefficients,
        states: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>),
        stride: Int, samples: UnsafeMutablePointer<Float>, count: Int
    ) {
        let (sp, sq) = states
        var x1 = sp[0], x2 = sp[stride], y1 = sp[2 * stride], y2 = sp[3 * stride]
        var z1 = sq[2 * stride], z2 = sq[3 * stride]
        var p1 = c0.b1 * x1 + c0.b2 * x2 - c0.a1 * y1 - c0.a2 * y2, p2 = c0.b2 * x1 - c0.a2 * y1
        var q1 = c1.b1 * y1 + c1.b2 * y2 - c1.a1 * z1 - c1.a2 * z2, q2 = c1.b2 * y1 - c1.a2 * z1
        let pc1 = c0.b1 - c0.a1 * c0.b0, pc2 = c0.b2 - c0.a2 * c0.b0
        let qc1 = c1.b1 - c1.a1 * c1.b0, qc2 = c1.b2 - c1.a2 * c1.b0
        for frame in 0..<count {
            let x = Double(samples[frame])
            let y = c0.b0 * x + p1
            let p = p1
            p1 = (pc1 * x + p2) - c0.a1 * p
            p2 = pc2 * x - c0.a2 * p
            let z = c1.b0 * y + q1
            let q = q1
            q1 = (qc1 * y + q2) - c1.a1 * q
            q2 = qc2 * y - c1.a2 * q
            x2 = x1; x1 = x; y2 = y1; y1 = y; z2 = z1; z1 = z
            samples[frame] = Float(z)
        }
        sp[0] = x1; sp[stride] = x2; sp[2 * stride] = y1; sp[3 * stride] = y2
        sq[0] = y1; sq[stride] = y2; sq[2 * stride] = z1; sq[3 * stride] = z2
    }

    /// Two channels in one vector register; `state` holds (x1, x2, y1, y2) as pairs.
    @inline(__always)
    static func runPair(_ c: BiquadCoefficients, state: UnsafeMutablePointer<Double>, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, count: Int) {
        var (x1, x2, y1, y2) = load(state)
        var (s1, s2) = transposedState(c, x1: x1, x2: x2, y1: y1, y2: y2)
        let b0 = SIMD2(repeating: c.b0), b1 = SIMD2(repeating: c.b1), b2 = SIMD2(repeating: c.b2)
        let a1 = SIMD2(repeating: c.a1), a2 = SIMD2(repeating: c.a2)
        let c1 = b1 - a1 * b0, c2 = b2 - a2 * b0
        for frame in 0..<count {
            let x = SIMD2(Double(left[frame]), Double(right[frame]))
            let y = b0 * x + s1
            let previous = s1
            s1 = (c1 * x + s2) - a1 * previous
            s2 = c2 * x - a2 * previous
            x2 = x1; x1 = x; y2 = y1; y1 = y
            left[frame] = Float(y.x)
            right[frame] = Float(y.y)
        }
        store(x1, x2, y1, y2, into: state)
    }

    @inline(__always)
    private static func load(_ state: UnsafeMutablePointer<Double>) -> (SIMD2<Double>, SIMD2<Double>, SIMD2<Double>, SIMD2<Double>) {
        (SIMD2(state[0], state[1]), SIMD2(state[2], state[3]), SIMD2(state[4], state[5]), SIMD2(state[6], state[7]))
    }

    @inline(__always)
    private static func store(_ x1: SIMD2<Double>, _ x2: SIMD2<Double>, _ y1: SIMD2<Double>, _ y2: SIMD2<Double>, into state: UnsafeMutablePointer<Double>) {
        state[0] = x1.x; state[1] = x1.y; state[2] = x2.x; state[3] = x2.y
        state[4] = y1.x; state[5] = y1.y; state[6] = y2.x; state[7] = y2.y
    }

    /// Three sections in series on two channels, fused so the sections overlap in the
    /// pipeline instead of waiting on one another. Each section's input history is the
    /// previous section's output history.
    @inline(__always)
    static func runPair3(
        _ c0: BiquadCoefficients, _ c1: BiquadCoefficients, _ c2: BiquadCoefficients,
        states: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>),
        left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, count: Int
    ) {
        let (sp, sq, sr) = states
        var (x1, x2, y1, y2) = load(sp)
        var z1 = SIMD2(sq[4], sq[5]), z2 = SIMD2(sq[6], sq[7])
        var w1 = SIMD2(sr[4], sr[5]), w2 = SIMD2(sr[6], sr[7])
        var (p1, p2) = transposedState(c0, x1: x1, x2: x2, y1: y1, y2: y2)
        var (q1, q2) = transposedState(c1, x1: y1, x2: y2, y1: z1, y2: z2)
        var (r1, r2) = transposedState(c2, x1: z1, x2: z2, y1: w1, y2: w2)
        let pb0 = SIMD2(repeating: c0.b0), pb1 = SIMD2(repeating: c0.b1), pb2 = SIMD2(repeating: c0.b2), pa1 = SIMD2(repeating: c0.a1), pa2 = SIMD2(repeating: c0.a2)
        let qb0 = SIMD2(repeating: c1.b0), qb1 = SIMD2(repeating: c1.b1), qb2 = SIMD2(repeating: c1.b2), qa1 = SIMD2(repeating: c1.a1), qa2 = SIMD2(repeating: c1.a2)
        let rb0 = SIMD2(repeating: c2.b0), rb1 = SIMD2(repeating: c2.b1), rb2 = SIMD2(repeating: c2.b2), ra1 = SIMD2(repeating: c2.a1), ra2 = SIMD2(repeating: c2.a2)
        let pc1 = pb1 - pa1 * pb0, pc2 = pb2 - pa2 * pb0
        let qc1 = qb1 - qa1 * qb0, qc2 = qb2 - qa2 * qb0
        let rc1 = rb1 - ra1 * rb0, rc2 = rb2 - ra2 * rb0
        for frame in 0..<count {
            let x = SIMD2(Double(left[frame]), Double(right[frame]))
            let y = pb0 * x + p1
            let p = p1
            p1 = (pc1 * x + p2) - pa1 * p
            p2 = pc2 * x - pa2 * p
            let z = qb0 * y + q1
            let q = q1
            q1 = (qc1 * y + q2) - qa1 * q
            q2 = qc2 * y - qa2 * q
            let w = rb0 * z + r1
            let r = r1
            r1 = (rc1 * z + r2) - ra1 * r
            r2 = rc2 * z - ra2 * r
            x2 = x1; x1 = x; y2 = y1; y1 = y; z2 = z1; z1 = z; w2 = w1; w1 = w
            left[frame] = Float(w.x)
            right[frame] = Float(w.y)
        }
        store(x1, x2, y1, y2, into: sp)
        store(y1, y2, z1, z2, into: sq)
        store(z1, z2, w1, w2, into: sr)
    }

    /// One channel, blended with its input: out = x + wet·(H(x) - x), `wet` moving
    /// linearly from `start` by `step` per frame. Used while a band fades in or out;
    /// direct form I throughout, as this path is rare.
    @inline(__always)
    static func runBlended(_ c: BiquadCoefficients, state: UnsafeMutablePointer<Double>, stride: Int, samples: UnsafeMutablePointer<Float>, count: Int, start: Double, step: Double) {
        var x1 = state[0], x2 = state[stride], y1 = state[2 * stride], y2 = state[3 * stride]
        for frame in 0..<count {
            let x = Double(samples[frame])
            let y = c.b0 * x + c.b1 * x1 + c.b2 * x2 - c.a1 * y1 - c.a2 * y2
            x2 = x1; x1 = x; y2 = y1; y1 = y
            let wet = start + step * Double(frame + 1)
            samples[frame] = Float(x + wet * (y - x))
        }
        state[0] = x1; state[stride] = x2; state[2 * stride] = y1; state[3 * stride] = y2
    }
}
