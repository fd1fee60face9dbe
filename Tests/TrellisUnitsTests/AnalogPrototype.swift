import Glibc
import TrellisUnits

/// The cookbook filters' analog prototypes H(s), evaluated where the bilinear transform
/// (prewarped at f0) puts a digital frequency: s = j·tan(πf/fs)/tan(πf0/fs). This is the
/// analytic response the digital filters must match, derived independently of their
/// coefficient formulas.
enum AnalogPrototype {
    static func magnitude(_ type: FilterType, at frequency: Double, centre: Double, gain: Double, q: Double, sampleRate: Double) -> Double {
        let omega = tan(Double.pi * frequency / sampleRate) / tan(Double.pi * centre / sampleRate)
        let a = pow(10, gain / 40)
        let s = Complex(0, omega)
        let s2 = s * s
        let one = Complex(1, 0)
        let h: Complex
        switch type {
        case .lowPass: h = one / (s2 + s / q + one)
        case .highPass: h = s2 / (s2 + s / q + one)
        case .bandPass: h = (s / q) / (s2 + s / q + one)
        case .notch: h = (s2 + one) / (s2 + s / q + one)
        case .allPass: h = (s2 - s / q + one) / (s2 + s / q + one)
        case .peaking: h = (s2 + s * (a / q) + one) / (s2 + s / (a * q) + one)
        case .lowShelf:
            h = (s2 + s * (a.squareRoot() / q) + Complex(a, 0)) / (s2 * a + s * (a.squareRoot() / q) + one) * a
        case .highShelf:
            h = (s2 * a + s * (a.squareRoot() / q) + one) / (s2 + s * (a.squareRoot() / q) + Complex(a, 0)) * a
        }
        return h.magnitude
    }
}

struct Complex {
    var re: Double
    var im: Double
    init(_ re: Double, _ im: Double) { self.re = re; self.im = im }
    var magnitude: Double { (re * re + im * im).squareRoot() }
    static func + (l: Complex, r: Complex) -> Complex { Complex(l.re + r.re, l.im + r.im) }
    static func - (l: Complex, r: Complex) -> Complex { Complex(l.re - r.re, l.im - r.im) }
    static func * (l: Complex, r: Complex) -> Complex { Complex(l.re * r.re - l.im * r.im, l.re * r.im + l.im * r.re) }
    static func * (l: Complex, r: Double) -> Complex { Complex(l.re * r, l.im * r) }
    static func / (l: Complex, r: Double) -> Complex { Complex(l.re / r, l.im / r) }
    static func / (l: Complex, r: Complex) -> Complex {
        let d = r.re * r.re + r.im * r.im
        return Complex((l.re * r.re + l.im * r.im) / d, (l.im * r.re - l.re * r.im) / d)
    }
}

/// Plays a sine through an effect and returns output RMS over input RMS in dB, measured
/// over a whole number of cycles after the filter has settled.
func measuredGain(_ harness: UnitHarness, frequency: Double, sampleRate: Double = 48_000, channel: Int = 0) -> Double {
    harness.unit.reset()
    let settle = 4800
    let cycles = max(40, (frequency * 0.1).rounded())
    let window = Int((cycles * sampleRate / frequency).rounded())
    let input = sine(frequency: frequency, sampleRate: sampleRate, count: settle + window, amplitude: 0.5)
    let channels = harness.outputs[0].channelCount
    let output = harness.process(Array(repeating: input, count: channels))
    return decibels(rms(output[channel][settle...]) / rms(input[settle...]))
}
