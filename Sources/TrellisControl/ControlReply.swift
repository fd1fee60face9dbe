/// The answer to one command. Thread: any (a plain value).
public enum ControlReply: Sendable, Equatable {
    /// `text` is what the line protocol prints after `ok`; `value` is what JSON mode sends.
    case ok(text: String, value: ControlValue)
    case error(ControlError)

    public static let done = ControlReply.ok(text: "", value: .null)

    public static func ok(_ text: String) -> ControlReply { .ok(text: text, value: text.isEmpty ? .null : .string(text)) }

    public var isOK: Bool { if case .ok = self { true } else { false } }

    /// One line of the line protocol, without the newline.
    public var line: String {
        switch self {
        case .ok(let text, _): return text.isEmpty ? "ok" : "ok " + Self.oneLine(text)
        case .error(let error): return "error \(error.code.rawValue) \(Self.oneLine(error.message))"
        }
    }

    /// The JSON object JSON mode sends, echoing the request's `id`.
    public func json(id: ControlValue) -> ControlValue {
        switch self {
        case .ok(_, let value):
            return .object([("id", id), ("ok", .bool(true)), ("result", value)])
        case .error(let error):
            return .object([("id", id), ("ok", .bool(false)), ("error", .object([("code", .string(error.code.rawValue)), ("message", .string(error.message))]))])
        }
    }

    static func oneLine(_ text: String) -> String {
        // Every newline Character holds one of these bytes (\n \v \f \r, or the lead
        // byte of U+0085, U+2028 and U+2029): most lines are cleared by the bytes alone.
        guard text.utf8.contains(where: { (0x0A...0x0D).contains($0) || $0 == 0xC2 || $0 == 0xE2 }) else { return text }
        return text.contains(where: \.isNewline) ? String(text.map { $0.isNewline ? " " : $0 }) : text
    }
}
