/// Why a session file could not be loaded: where, and what was expected there. A load
/// that fails builds nothing; it goes on past a bad node or connection only to find the
/// others (`others`, at most `limit` in all), so one run of `validate` shows them all.
public struct SessionError: Error, Sendable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    /// Further errors found in the same load, in file order.
    public var others: [SessionError] = []
    /// The reading cannot go on to look for more errors (a limit was reached).
    public internal(set) var stopsReading = false

    /// Errors collected before a load gives up looking for more.
    public static let limit = 50

    public init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }

    /// The first of `errors` carrying the rest. Thread: any.
    public static func combined(_ errors: [SessionError]) -> SessionError {
        let all = errors.flatMap { [SessionError($0.message, at: $0.location)] + $0.others }
        var first = all[0]
        first.others = Array(all.dropFirst())
        return first
    }

    /// `file:line:column: message`, and how many more errors there are.
    public var description: String {
        "\(location): \(message)" + (others.isEmpty ? "" : " (and \(others.count) more error\(others.count == 1 ? "" : "s"))")
    }

    /// Every error, one `file:line:column: message` each.
    public var lines: [String] { ([self] + others).map { "\($0.location): \($0.message)" } }
}

/// Something a load did not stop for but a person should know: a plugin that is not
/// installed and became a placeholder. Warnings are returned, never printed.
public struct SessionWarning: Sendable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String

    public init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }

    /// `file:line:column: warning: message`.
    public var description: String { "\(location): warning: \(message)" }
}

/// Why a session could not be saved. The file that was there is unchanged.
public struct SessionWriteError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): could not save: \(reason)" }
}
