import TrellisChain
import TrellisCore
import TrellisUnits

/// Property values as JSON, and read from text by the kind of value the property holds.
extension PropertyText {
    static func json(_ value: PropertyValue) -> ControlValue {
        switch value {
        case .int(let number): .number(number)
        case .double(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .string(let string): .string(string)
        case .strings(let strings): .array(strings.map { .string($0) })
        case .format(let format):
            .object([("sampleRate", .number(format.sampleRate)), ("channels", .number(format.channelCount)),
                     ("sampleType", .string(format.sampleType.rawValue)), ("interleaved", .bool(format.isInterleaved))])
        case .parameters(let parameters): .array(parameters.map { .string($0.identifier) })
        case .channelMap(let entries): .array(entries.map { .number($0) })
        }
    }

    /// `text` read as the kind of value `current` is.
    static func value(_ text: String, like current: PropertyValue, for id: PropertyID) throws(ControlError) -> PropertyValue {
        let name = keyword(id)
        switch current {
        case .int:
            guard let number = Int(text) else { throw ControlError(.badValue, "\(name) takes a whole number, not \(CommandTokenizer.quote(text))") }
            return .int(number)
        case .double:
            guard let number = Double(text), number.isFinite else { throw ControlError(.badValue, "\(name) takes a number, not \(CommandTokenizer.quote(text))") }
            return .double(number)
        case .bool:
            switch text.lowercased() {
            case "true", "on", "yes", "1": return .bool(true)
            case "false", "off", "no", "0": return .bool(false)
            default: throw ControlError(.badValue, "\(name) takes true or false, not \(CommandTokenizer.quote(text))")
            }
        case .string:
            return .string(text)
        case .channelMap:
            guard let map = ChannelMap(text: text) else {
                throw ControlError(.badValue, "\(name) takes input channels separated by commas (silence for none, mix for all summed), not \(CommandTokenizer.quote(text))")
            }
            return .channelMap(map.entries)
        case .strings, .format, .parameters:
            throw ControlError(.readOnly, "\(name) cannot be set as text: a node's widths and rate come from the session (channels=, inputs=, outputs=) and its parameters from its unit")
        }
    }
}
