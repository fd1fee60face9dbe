/// One symmetric scale between float and integer samples: an integer `v` of `bits` bits
/// is the float `v / 2^(bits-1)`, exactly, both ways.
///
/// libsndfile's own float-to-int path scales by `2^(bits-1) - 1` when writing but by
/// `2^(bits-1)` when reading, so an integer does not survive a round trip through float.
/// Trellis therefore never lets libsndfile convert between float and integer: it moves
/// integers through libsndfile's `int` interface, which holds every PCM width
/// left-justified in 32 bits, and does the scaling here.
enum SampleScaling {
    /// Left-justified 32-bit integer to float: exact for up to 24 significant bits;
    /// wider int32 values round to float's 24-bit significand.
    static let intToFloat: Float = 1.0 / 2_147_483_648.0

    /// Float to a `bits`-wide integer, left-justified in 32 bits. Rounds to nearest,
    /// clips to the integer's range, and writes NaN as 0. `dither` (in least significant
    /// bits) is added before rounding, except to a sample already on the integer grid:
    /// silence stays silent and integer audio round-trips exactly, as sox leaves them.
    @inline(__always)
    static func leftJustifiedInteger(_ sample: Float, bits: Int, dither: Double = 0) -> Int32 {
        let fullScale = Double(sign: .plus, exponent: bits - 1, significand: 1)
        let exact = Double(sample) * fullScale
        let scaled = (exact.rounded() == exact ? exact : exact + dither).rounded(.toNearestOrEven)
        let value: Int32
        if scaled >= fullScale {
            value = bits == 32 ? Int32.max : Int32(fullScale) - 1
        } else if scaled >= -fullScale {
            value = Int32(scaled)
        } else if scaled.isNaN {
            value = 0
        } else {
            value = bits == 32 ? Int32.min : -Int32(fullScale)
        }
        return bits == 32 ? value : value << Int32(32 - bits)
    }
}
