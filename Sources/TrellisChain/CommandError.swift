/// A failure the command line and the C interface report as one line: what went wrong
/// and where, in the words `trellis` prints.
public struct CommandError: Error, CustomStringConvertible {
    /// What the failure is about, for a caller that sorts failures (the C interface's
    /// status codes).
    public enum Kind: Sendable {
        case other, argument, unit, parameter, file, session
    }

    public var description: String
    public var kind: Kind

    public init(_ description: String, kind: Kind = .other) {
        self.description = description
        self.kind = kind
    }
}
