/// What TrellisAV throws: the kind of failure and a message that says what and where.
/// Apple's calls throw `NSError`s with OSStatus codes; code that catches any error and
/// prints it works unchanged.
public struct AVAudioError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A settings dictionary or format that Trellis cannot honour.
        case settings
        /// A file that cannot be opened, read or written.
        case file
        /// A call made in a state that does not allow it (an engine not prepared, a buffer too small).
        case state
        /// The graph refused an edit (a format mismatch, a node not attached).
        case graph
    }

    public let kind: Kind
    public let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
    public var localizedDescription: String { message }
}
