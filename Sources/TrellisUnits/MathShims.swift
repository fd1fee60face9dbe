/// Math for kernels. Swift's `_sin`, `_cos`, `_exp`, `_exp2`, `_log2`, `_log10` are LLVM
/// intrinsics that reach the same libm routines without a C call the real-time checker
/// refuses; what Swift lacks is built from them here. Thread: any.

/// `base` to the power `exponent`, for `base` > 0.
@inline(__always)
func power(_ base: Double, _ exponent: Double) -> Double {
    _exp2(exponent * _log2(base))
}

/// `value` rounded to the nearest integer, halves away from zero, as `rounded()` does
/// (which the checker refuses for the rounding rule's metadata).
@inline(__always)
func roundedToInt(_ value: Float) -> Int {
    let whole = Int(value)
    let fraction = value - Float(whole)
    return fraction >= 0.5 ? whole + 1 : (fraction <= -0.5 ? whole - 1 : whole)
}

/// 10^x.
@inline(__always)
func exp10Double(_ x: Double) -> Double {
    _exp(x * 2.302585092994046)
}

/// √x, 0 for x ≤ 0 (`squareRoot()` goes through a C shim the checker cannot see into):
/// Newton's method in double precision from a halved exponent, which rounds to the same
/// float as the correctly rounded root.
@inlinable @inline(__always)
func squareRoot(_ x: Float) -> Float {
    guard x > 0 else { return 0 }
    guard x.isFinite else { return x }
    let value = Double(x)
    var root = Double(bitPattern: (value.bitPattern >> 1) &+ 0x1FF8_0000_0000_0000)
    for _ in 0..<5 { root = 0.5 * (root + value / root) }
    return Float(root)
}
