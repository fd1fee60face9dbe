import Glibc

/// A normalized second-order section, H(z) = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²),
/// designed with Robert Bristow-Johnson's "Audio EQ Cookbook" formulas. Thread: any.
public struct BiquadCoefficients: Sendable, BitwiseCopyable, Equatable {
    public var b0: Double
    public var b1: Double
    public var b2: Double
    public var a1: Double
    public var a2: Double

    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0
        self.b1 = b1
        self.b2 = b2
        self.a1 = a1
        self.a2 = a2
    }

    public static let identity = BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    /// The cookbook design: `frequency` in Hz, `gain` in dB (peaking and shelves), `q`
    /// the quality factor (for shelves the cookbook's Q form of the slope).
    @inline(__always)
    public static func design(_ type: FilterType, frequency: Double, gain: Double, q: Double, sampleRate: Double) -> BiquadCoefficients {
        let omega = 2 * Double.pi * Swift.min(frequency, 0.4999 * sampleRate) / sampleRate
        let cosine = _cos(omega)
        let alpha = _sin(omega) / (2 * Swift.max(q, 1e-3))
        let a = exp10Double(gain / 40)
        let (b0, b1, b2, a0, a1, a2): (Double, Double, Double, Double, Double, Double)
        switch type {
        case .lowPass:
            (b0, b1, b2) = ((1 - cosine) / 2, 1 - cosine, (1 - cosine) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cosine, 1 - alpha)
        case .highPass:
            (b0, b1, b2) = ((1 + cosine) / 2, -(1 + cosine), (1 + cosine) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cosine, 1 - alpha)
        case .bandPass:
            (b0, b1, b2) = (alpha, 0, -alpha)
            (a0, a1, a2) = (1 + alpha, -2 * cosine, 1 - alpha)
        case .notch:
            (b0, b1, b2) = (1, -2 * cosine, 1)
            (a0, a1, a2) = (1 + alpha, -2 * cosine, 1 - alpha)
        case .allPass:
            (b0, b1, b2) = (1 - alpha, -2 * cosine, 1 + alpha)
            (a0, a1, a2) = (1 + alpha, -2 * cosine, 1 - alpha)
        case .peaking:
            (b0, b1, b2) = (1 + alpha * a, -2 * cosine, 1 - alpha * a)
            (a0, a1, a2) = (1 + alpha / a, -2 * cosine, 1 - alpha / a)
        case .lowShelf:
            let root = 2 * exp10Double(gain / 80) * alpha
            b0 = a * ((a + 1) - (a - 1) * cosine + root)
            b1 = 2 * a * ((a - 1) - (a + 1) * cosine)
            b2 = a * ((a + 1) - (a - 1) * cosine - root)
            a0 = (a + 1) + (a - 1) * cosine + root
            a1 = -2 * ((a - 1) + (a + 1) * cosine)
            a2 = (a + 1) + (a - 1) * cosine - root
        case .highShelf:
            let root = 2 * exp10Double(gain / 80) * alpha
            b0 = a * ((a + 1) + (a - 1) * cosine + root)
            b1 = -2 * a * ((a - 1) + (a + 1) * cosine)
            b2 = a * ((a + 1) + (a - 1) * cosine - root)
            a0 = (a + 1) - (a - 1) * cosine + root
            a1 = 2 * ((a - 1) - (a + 1) * cosine)
            a2 = (a + 1) - (a - 1) * cosine - root
        }
        return BiquadCoefficients(b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0)
    }

    /// |H(e^jω)| at `frequency`: the section's magnitude response.
    public func magnitude(at frequency: Double, sampleRate: Double) -> Double {
        let omega = 2 * Double.pi * frequency / sampleRate
        let (c1, s1, c2, s2) = (cos(omega), sin(omega), cos(2 * omega), sin(2 * omega))
        let numeratorReal = b0 + b1 * c1 + b2 * c2, numeratorImaginary = -(b1 * s1 + b2 * s2)
        let denominatorReal = 1 + a1 * c1 + a2 * c2, denominatorImaginary = -(a1 * s1 + a2 * s2)
        return ((numeratorReal * numeratorReal + numeratorImaginary * numeratorImaginary)
            / (denominatorReal * denominatorReal + denominatorImaginary * denominatorImaginary)).squareRoot()
    }
}
