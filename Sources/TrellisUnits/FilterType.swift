/// The shapes of the RBJ cookbook's second-order filters.
public enum FilterType: Int, CaseIterable, Sendable, BitwiseCopyable {
    case peaking, lowShelf, highShelf, lowPass, highPass, bandPass, notch, allPass

    /// Names as the `type` parameters list them.
    public var name: String {
        switch self {
        case .peaking: "peaking"
        case .lowShelf: "low shelf"
        case .highShelf: "high shelf"
        case .lowPass: "low pass"
        case .highPass: "high pass"
        case .bandPass: "band pass"
        case .notch: "notch"
        case .allPass: "all pass"
        }
    }

    /// True when the gain parameter shapes the response.
    public var usesGain: Bool { self == .peaking || self == .lowShelf || self == .highShelf }
}
