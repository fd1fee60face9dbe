import TrellisCore

/// Parameter values as text, both ways, by the parameter's kind: numbers for all,
/// `on`/`off`/`true`/`false` for on/off parameters, value names for enumerations.
/// Thread: any.
public enum ParameterText {
    public struct Problem: Error {
        public var message: String
    }

    /// The value a text means for `info`, or a message saying what was expected.
    public static func decode(_ text: String, for info: ParameterInfo) -> Result<Float, Problem> {
        let expected = "expected \(describe(info))"
        if info.flags.contains(.toggled) {
            switch text.lowercased() {
            case "on", "true": return .success(info.range.upperBound)
            case "off", "false": return .success(info.range.lowerBound)
            default: break
            }
        }
        if !info.valueStrings.isEmpty, let index = info.valueStrings.firstIndex(where: { $0.lowercased() == text.lowercased() }) {
            return .success(info.range.lowerBound + Float(index))
        }
        let number: Double
        switch StrictScalar.number(text) {
        case .success(let value): number = value
        case .failure(let failure):
            if !info.flags.contains(.toggled), ["on", "off", "yes", "no", "true", "false"].contains(text.lowercased()) {
                return .failure(Problem(message: "\(expected), found \(quoted(text)): on/off words are accepted only for on/off parameters"))
            }
            if !info.valueStrings.isEmpty {
                let hint = Suggestions.didYouMean(Suggestions.closest(to: text, among: info.valueStrings))
                return .failure(Problem(message: "\(expected), found \(quoted(text))\(hint)"))
            }
            return .failure(Problem(message: "\(expected), \(failure.explanation)"))
        }
        if info.flags.contains(.integer) || info.flags.contains(.enumeration) || info.flags.contains(.toggled), number != number.rounded() {
            return .failure(Problem(message: "\(expected), found \(text), which is not a whole number"))
        }
        let value = Float(number)
        guard info.range.contains(value) else {
            return .failure(Problem(message: "\(text) is outside the range of \(info.identifier), \(format(info.range.lowerBound))...\(format(info.range.upperBound))\(unitSuffix(info))"))
        }
        return .success(value)
    }

    /// The text a save writes for `value`, in the style of `previous` where one was written.
    public static func encode(_ value: Float, for info: ParameterInfo, like previous: String? = nil) -> String {
        if info.flags.contains(.toggled) {
            let on = value >= (info.range.lowerBound + info.range.upperBound) / 2
            guard let previous else { return on ? "on" : "off" }
            switch previous.lowercased() {
            case "true", "false": return on ? "true" : "false"
            case "on", "off": return on ? "on" : "off"
            default: return format(value)
            }
        }
        let index = Int((value - info.range.lowerBound).rounded())
        if !info.valueStrings.isEmpty, info.valueStrings.indices.contains(index), Float(index) + info.range.lowerBound == value {
            if previous == nil || info.valueStrings.contains(where: { $0.lowercased() == previous!.lowercased() }) {
                return info.valueStrings[index]
            }
        }
        return format(value)
    }

    /// The shortest decimal text that reads back as the same Float.
    public static func format(_ value: Float) -> String {
        if value == value.rounded(), abs(value) < 1e7 { return String(Int(value)) }
        return "\(value)"
    }

    public static func describe(_ info: ParameterInfo) -> String {
        var text = "a value for \(info.identifier)"
        if info.flags.contains(.toggled) { return text + " (on or off)" }
        if !info.valueStrings.isEmpty { return text + " (\(info.valueStrings.joined(separator: ", ")) or an index)" }
        text += " (\(format(info.range.lowerBound))...\(format(info.range.upperBound))\(unitSuffix(info)))"
        return text
    }

    private static func unitSuffix(_ info: ParameterInfo) -> String {
        switch info.unit {
        case .hertz: " Hz"
        case .decibels: " dB"
        case .seconds: " s"
        case .milliseconds: " ms"
        case .percent: " %"
        default: ""
        }
    }

    /// The parameter a session names: by identifier (an LV2 symbol) or display name.
    public static func find(_ name: String, in unit: any AudioUnit) -> ParameterInfo? {
        let lowered = name.lowercased()
        return unit.parameters.first { $0.identifier.lowercased() == lowered }
            ?? unit.parameters.first { $0.name.lowercased() == lowered }
    }
}
