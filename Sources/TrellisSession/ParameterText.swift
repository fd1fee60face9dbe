import TrellisCore

/// Parameter values as text, both ways, by the parameter's kind: numbers for all,
/// `on`/`off`/`true`/`false` for on/off parameters, value names for enumerations.
/// Sessions, `ctl add`/`set` and `trellis chain` all read values here. Thread: any.
public enum ParameterText {
    /// The value `text` means for `info`. `name` is the parameter as the text named it,
    /// for messages. These are the value rules every front end shares:
    /// - on/off parameters take `on`, `off`, `true`, `false`, or a number of their range;
    /// - enumerations take a value name (any case) or an index;
    /// - everything else is a plain decimal number: no on/off words, no YAML 1.1 octal,
    ///   hexadecimal, base-60, underscores, infinities or NaN;
    /// - whole-number parameters (integer, enumeration, on/off) refuse fractions, and
    ///   every number is checked against the parameter's range.
    public static func value(_ text: String, for info: ParameterInfo, named name: String? = nil) throws(UnitFactoryError) -> Float {
        let name = name ?? info.identifier
        let expected = describe(info)
        let lowered = text.lowercased()
        if info.flags.contains(.toggled) {
            switch lowered {
            case "on", "true": return info.range.upperBound
            case "off", "false": return info.range.lowerBound
            default: break
            }
        }
        if !info.valueStrings.isEmpty, let index = info.valueStrings.firstIndex(where: { $0.lowercased() == lowered }) {
            return info.range.lowerBound + Float(index)
        }
        let number: Double
        switch StrictScalar.number(text) {
        case .success(let value): number = value
        case .failure(let failure):
            if !info.flags.contains(.toggled), StrictScalar.yaml11Booleans.contains(lowered) {
                throw .invalidValue(parameter: name, text: text, expected: expected, problem: .onOffWord)
            }
            if !info.valueStrings.isEmpty {
                let suggestions = Suggestions.closest(to: text, among: info.valueStrings)
                throw .invalidValue(parameter: name, text: text, expected: expected, problem: .notAValueName(suggestions: suggestions))
            }
            if case .ambiguous(_, let reason) = failure {
                throw .invalidValue(parameter: name, text: text, expected: expected, problem: .ambiguous(reason: reason))
            }
            throw .invalidValue(parameter: name, text: text, expected: expected, problem: .notANumber)
        }
        if info.flags.contains(.integer) || info.flags.contains(.enumeration) || info.flags.contains(.toggled), number != number.rounded() {
            throw .invalidValue(parameter: name, text: text, expected: expected, problem: .notWhole)
        }
        let value = Float(number)
        guard info.range.contains(value) else {
            throw .outOfRange(parameter: name, text: text, range: "\(format(info.range.lowerBound))...\(format(info.range.upperBound))\(unitSuffix(info))")
        }
        return value
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

    /// "a value for NAME (what it takes)", for messages.
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
        unit.parameterIndex(named: name).map { unit.parameters[$0] }
    }
}
