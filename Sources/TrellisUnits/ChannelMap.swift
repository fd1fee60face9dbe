import TrellisCore

/// Which input channel feeds each output channel of a converter. Entries are input
/// channel numbers, or `silence` (-1), or `mixAll` (-2: the average of every input
/// channel, for stereo to mono). Thread: any.
public struct ChannelMap: Hashable, Sendable {
    public static let silence = -1
    public static let mixAll = -2

    public var entries: [Int]

    public init(_ entries: [Int]) {
        self.entries = entries
    }

    /// The map a converter uses when none is set: channels straight through, a mono
    /// input copied to every output, several inputs averaged into a mono output, and any
    /// output beyond the input's channels silent.
    public static func standard(inputs: Int, outputs: Int) -> ChannelMap {
        if inputs == 1 { return ChannelMap(Array(repeating: 0, count: outputs)) }
        if outputs == 1 && inputs > 1 { return ChannelMap([mixAll]) }
        return ChannelMap((0..<outputs).map { $0 < inputs ? $0 : silence })
    }

    /// Reads the text form sessions, `ctl add` and `trellis chain` write: entries
    /// separated by commas, each an input channel number, `silence` (or -1) or `mix` (or
    /// -2): `1,0` swaps a stereo pair, `0,0` spreads a mono input, `mix` sums to mono.
    /// Returns nil for text that is not a map.
    public init?(text: String) {
        var entries: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let word = part.trimmingCharacters(in: " \t")
            switch word.lowercased() {
            case "silence": entries.append(Self.silence)
            case "mix": entries.append(Self.mixAll)
            default:
                guard let number = Int(word), number >= Self.mixAll, number <= 4096 else { return nil }
                entries.append(number)
            }
        }
        guard !entries.isEmpty, entries.count <= 256 else { return nil }
        self.entries = entries
    }

    /// The text form `init?(text:)` reads.
    public var text: String {
        entries.map { $0 == Self.silence ? "silence" : $0 == Self.mixAll ? "mix" : String($0) }.joined(separator: ",")
    }

    /// Checks the map against the channel counts it will run with.
    public func validate(inputs: Int, outputs: Int) -> String? {
        guard entries.count == outputs else {
            return "the map has \(entries.count) entries but the output has \(outputs) channels"
        }
        if let bad = entries.first(where: { $0 < ChannelMap.mixAll || $0 >= inputs }) {
            return "entry \(bad) is neither an input channel (0..<\(inputs)), -1 (silence) nor -2 (mix of all)"
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in blanks: String) -> String {
        var slice = self[...]
        while let first = slice.first, blanks.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, blanks.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

extension PropertyID {
    /// A converter's channel map (`PropertyValue.channelMap`), global scope. Settable
    /// while the unit is uninitialized.
    public static let channelMap = PropertyID(rawValue: 64000, name: "ChannelMap")
}
