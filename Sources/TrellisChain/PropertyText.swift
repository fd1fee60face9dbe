import TrellisCore
import TrellisUnits

/// Properties in the protocol's words: their names (`latency`, `stream-format`,
/// `bus-count`, or Core Audio's `StreamFormat`, or its number) and their values as text
/// (TrellisControl adds JSON, and a value read from text). Thread: any (plain functions).
public enum PropertyText {
    /// The properties a node is asked about: Core Audio's that Trellis has, and its own.
    public static let known: [PropertyID] = PropertyID.standard + [.channelMap]

    /// The elements of `scope` a property is read at on `unit`: element 0 of the global
    /// scope, and of a scope for its bus count; every bus (up to 64) for the rest.
    public static func elements(of id: PropertyID, scope: Scope, on unit: any AudioUnit) -> Range<Int> {
        scope == .global || id == .elementCount ? 0..<1 : 0..<min(unit.elementCount(scope), 64)
    }

    /// How the protocol names a property: its spoken name, words joined by `-`.
    public static func keyword(_ id: PropertyID) -> String {
        id.spokenName.split(separator: " ", omittingEmptySubsequences: false).joined(separator: "-")
    }

    /// The property a word names, or nil.
    public static func find(_ word: String) -> PropertyID? {
        let lowered = word.lowercased()
        return known.first { id in
            keyword(id) == lowered || id.name.lowercased() == lowered || kebab(id.name) == lowered || String(id.rawValue) == word
        }
    }

    /// `MaximumFramesPerSlice` as `maximum-frames-per-slice`.
    private static func kebab(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase, !result.isEmpty { result.append("-") }
            result.append(Character(character.lowercased()))
        }
        return result
    }

    /// The value as one word of text (quoted where it holds blanks only when listed).
    /// A number to the nanosecond or nano-unit: `0.35`, not the sum's `0.35000000000000003`.
    public static func number(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e9 else { return "\(value)" }
        return "\((value * 1e9).rounded() / 1e9)"
    }

    public static func text(_ value: PropertyValue) -> String {
        switch value {
        case .int(let number): String(number)
        case .double(let number): self.number(number)
        case .bool(let flag): flag ? "true" : "false"
        case .string(let string): string
        case .strings(let strings): strings.map(ChainText.quote).joined(separator: " ")
        case .format(let format): format.description
        case .parameters(let parameters): parameters.map(\.identifier).joined(separator: ",")
        case .channelMap(let entries): ChannelMap(entries).text
        }
    }
}
