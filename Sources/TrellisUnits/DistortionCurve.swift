/// The distortion's curves. Each leaves the signal as it is at drive 0 and grows harsher
/// as drive rises to 1; the smooth ones (soft clip, tube) keep a full-scale input at full
/// scale. Thread: any.
public enum DistortionCurve: Int, CaseIterable, Sendable, BitwiseCopyable {
    case softClip, hardClip, tube, fold, bitCrush, decimate

    public var name: String {
        switch self {
        case .softClip: "soft clip"
        case .hardClip: "hard clip"
        case .tube: "tube"
        case .fold: "fold"
        case .bitCrush: "bit crush"
        case .decimate: "decimate"
        }
    }

    /// The gain the smooth curves run at for `drive` in 0...1: 0 at 0, 10 (20 dB) at 1.
    @inline(__always)
    static func steepness(drive: Float) -> Float {
        (Float(exp10Double(Double(drive))) - 1) * 10 / 9
    }

    @inline(__always)
    static func tanh(_ x: Float) -> Float {
        if x > 12 { return 1 }
        if x < -12 { return -1 }
        let e = Float(_exp(Double(2 * x)))
        return (e - 1) / (e + 1)
    }
}

/// A curve's values fixed for a drive, and its state (the decimator's hold). Thread: audio.
struct DistortionShaper {
    var curve = DistortionCurve.softClip
    var steepness: Float = 0
    var gain: Float = 1
    /// Tube: the bias and the normalisers of the biased tanh.
    var bias: Float = 0.3
    var tubeOffset: Float = 0
    var tubeScale: Float = 1
    var softScale: Float = 1
    /// Bit crush: quantisation steps over ±1.
    var steps: Float = 8_388_608
    /// Decimate: fast samples each value is held for.
    var hold = 1
    var held: Float = 0
    var heldFor = 0

    mutating func set(curve: DistortionCurve, drive: Float) {
        self.curve = curve
        let drive = min(1, max(0, drive))
        steepness = DistortionCurve.steepness(drive: drive)
        gain = 1 + steepness
        softScale = steepness > 1e-3 ? 1 / DistortionCurve.tanh(steepness) : 1
        tubeOffset = DistortionCurve.tanh(steepness * bias)
        let top = DistortionCurve.tanh(steepness * (1 + bias)) - tubeOffset
        tubeScale = top > 1e-6 ? 1 / top : 1
        steps = Float(_exp2(Double(23 - 21 * drive)))
        hold = 1 + Int(drive * 63)
    }

    @inline(__always)
    mutating func shape(_ x: Float) -> Float {
        switch curve {
        case .softClip:
            return steepness > 1e-3 ? DistortionCurve.tanh(steepness * x) * softScale : x
        case .hardClip:
            return min(1, max(-1, gain * x))
        case .tube:
            return steepness > 1e-3 ? (DistortionCurve.tanh(steepness * (x + bias)) - tubeOffset) * tubeScale : x
        case .fold:
            // Reflects at ±1: a triangle of period 4 through the origin.
            let v = gain * x + 1
            let t = v - 4 * Float(Int(v / 4) - (v < 0 ? 1 : 0))
            return t < 2 ? t - 1 : 3 - t
        case .bitCrush:
            let scaled = x * steps
            let whole = Float(Int(scaled + (scaled < 0 ? -0.5 : 0.5)))
            return whole / steps
        case .decimate:
            if heldFor == 0 { held = x }
            heldFor = heldFor + 1 == hold ? 0 : heldFor + 1
            return held
        }
    }
}
