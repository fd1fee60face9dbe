/// OpenAL 1.1's distance attenuation models (§3.4). The result is clamped to 0...1, as
/// OpenAL clamps a source's gain to its default AL_MIN_GAIN and AL_MAX_GAIN. Thread: any.
public enum DistanceModel: Int, CaseIterable, Sendable, BitwiseCopyable {
    case none, inverse, inverseClamped, linear, linearClamped, exponential, exponentialClamped

    public var name: String {
        switch self {
        case .none: "none"
        case .inverse: "inverse"
        case .inverseClamped: "inverse clamped"
        case .linear: "linear"
        case .linearClamped: "linear clamped"
        case .exponential: "exponential"
        case .exponentialClamped: "exponential clamped"
        }
    }

    /// The attenuation of a source `distance` away.
    public func gain(distance: Float, reference: Float, maximum: Float, rolloff: Float) -> Float {
        var distance = distance
        switch self {
        case .inverseClamped, .linearClamped, .exponentialClamped:
            distance = min(max(distance, reference), maximum)
        case .linear:
            distance = min(distance, maximum)
        default:
            break
        }
        let gain: Float
        switch self {
        case .none:
            gain = 1
        case .inverse, .inverseClamped:
            let denominator = reference + rolloff * (distance - reference)
            gain = denominator > 0 ? reference / denominator : 1
        case .linear, .linearClamped:
            gain = maximum > reference ? 1 - rolloff * (distance - reference) / (maximum - reference) : 1
        case .exponential, .exponentialClamped:
            gain = distance > 0 && reference > 0 ? Float(power(Double(distance / reference), Double(-rolloff))) : 1
        }
        return gain.isFinite ? min(1, max(0, gain)) : 1
    }
}
