/// Why a session file could not be loaded: where, and what was expected there.
/// Loading stops at the first one and builds nothing.
public struct SessionError: Error, Sendable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String

    public init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }

    /// `file:line:column: message`.
    public var description: String { "\(location): \(message)" }
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
