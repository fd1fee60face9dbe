/// The shapes of the RBJ cookbook's second-order filters.
public enum FilterType: Int, CaseIterable, Sendable, BitwiseCopyable {
    case peaking, lowShelf, highShelf, lowPass, highPass, bandPass, notch, allPass

    /// Names as the `type` parameters list them: one word each, so they read as plain
    /// values in sessions and on the command line (`band0.type=lowshelf`).
    public var name: String {
        switch self {
        case .peaking: "peaking"
        case .lowShelf: "lowshelf"
        case .highShelf: "highshelf"
        case .lowPass: "lowpass"
        case .highPass: "highpass"
        case .bandPass: "bandpass"
        case .notch: "notch"
        case .allPass: "allpass"
        }
    }

    /// True when the gain parameter shapes the response.
    public var usesGain: Bool { self == .peaking || self == .lowShelf || self == .highShelf }
}
