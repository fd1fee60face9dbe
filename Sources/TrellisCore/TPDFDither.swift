/// Triangular-PDF dither: the sum of two independent uniform values, spanning ±1 least
/// significant bit. Added before rounding to fewer bits, it makes the rounding error
/// independent of the signal (noise instead of distortion). Thread: one at a time; no allocation.
public struct TPDFDither: Sendable, BitwiseCopyable {
    private var state: UInt64

    public init(seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        state = seed == 0 ? 1 : seed
    }

    /// The next dither value, in least significant bits: in (-1, 1), triangular.
    @inline(__always)
    public mutating func next() -> Double {
        uniform() - uniform()
    }

    /// xorshift64*: a uniform value in [0, 1).
    @inline(__always)
    private mutating func uniform() -> Double {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return Double((state &* 2_685_821_657_736_338_717) >> 11) * 0x1p-53
    }
}
