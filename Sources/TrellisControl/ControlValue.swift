import Foundation

/// Structured data in a reply or an event: what JSON mode sends as an object, and
/// what the line protocol prints as `key=value` words. Thread: any (a plain value).
public indirect enum ControlValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ControlValue])
    /// Keys keep their order, so output is stable.
    case object([(String, ControlValue)])

    public static func == (lhs: ControlValue, rhs: ControlValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// A float by its shortest decimal, so -6.0206 stays -6.0206 and not -6.020599842071533.
    public static func number(_ value: Float) -> ControlValue { .number(value.isFinite ? Double("\(value)") ?? Double(value) : Double(value)) }
    public static func number(_ value: Int) -> ControlValue { .number(Double(value)) }

    /// The member `key` of an object.
    public subscript(key: String) -> ControlValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// Compact JSON text, keys in order.
    public var json: String {
        var text = ""
        write(into: &text)
        return text
    }

    private func write(into text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value): text += Self.format(value)
        case .string(let value): Self.quote(value, into: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(into: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { text += "," }
                Self.quote(key, into: &text)
                text += ":"
                value.write(into: &text)
            }
            text += "}"
        }
    }

    /// Whole numbers without a fraction; JSON has no NaN or infinity, so those are null.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func quote(_ string: String, into text: inout String) {
        // Most strings (names, states) need no escape: copied whole.
        if string.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            text += "\"" + string + "\""
            return
        }
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// A value from what `JSONSerialization` returns.
    static func from(json object: Any) -> ControlValue {
        switch object {
        case let value as NSNumber where String(cString: value.objCType) == "c" && (value == 0 || value == 1): return .bool(value.boolValue)
        case let value as NSNumber: return .number(value.doubleValue)
        case let value as String: return .string(value)
        case let value as [Any]: return .array(value.map(from(json:)))
        case let value as [String: Any]: return .object(value.keys.sorted().map { ($0, from(json: value[$0]!)) })
        default: return .null
        }
    }

    /// The text a command-line word stands for: strings as they are, numbers as written.
    var word: String? {
        switch self {
        case .string(let value): value
        case .number(let value): Self.format(value)
        case .bool(let value): value ? "on" : "off"
        default: nil
        }
    }
}
