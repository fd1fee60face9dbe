/// Why a command failed: a short upper-case code that programs test, and a message
/// that names what was wrong. Every code is listed in docs/control.md.
/// Thread: any (a plain value).
public struct ControlError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue) \(message)" }

    public enum Code: String, Sendable, CaseIterable {
        /// The words do not fit the command's form (missing or extra words, bad quoting, not UTF-8).
        case syntax = "SYNTAX"
        case unknownCommand = "UNKNOWN_COMMAND"
        case unknownNode = "UNKNOWN_NODE"
        case unknownParameter = "UNKNOWN_PARAMETER"
        case unknownUnit = "UNKNOWN_UNIT"
        case unknownPreset = "UNKNOWN_PRESET"
        case unknownProperty = "UNKNOWN_PROPERTY"
        /// A value that is not of the parameter's kind (a word for a number, a fraction for an integer).
        case badValue = "BAD_VALUE"
        case outOfRange = "OUT_OF_RANGE"
        case readOnly = "READ_ONLY"
        case duplicateNode = "DUPLICATE_NODE"
        /// The graph refused the edit (fan-out, cycle, bus, format); the graph is unchanged.
        case graph = "GRAPH"
        /// The parameter queue to the audio thread is full; try again.
        case busy = "BUSY"
        /// The command needs something this session or build lacks (a file player, a recorder).
        case unsupported = "UNSUPPORTED"
        /// The session runs without JACK.
        case noJACK = "NO_JACK"
        case jack = "JACK"
        /// A session file could not be loaded or saved.
        case session = "SESSION"
        case lineTooLong = "LINE_TOO_LONG"
        /// A load, save or player's file did not answer in time (`--file-timeout`); what it
        /// would have changed was not.
        case timeout = "TIMEOUT"
        /// The client is not this session's user, or did not show the session's secret.
        case auth = "AUTH"
        case `internal` = "INTERNAL"
    }
}
