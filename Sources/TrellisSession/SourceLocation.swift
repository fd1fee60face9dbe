/// A place in a session file, 1-based, printed the way compilers print them.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The path as the session names it (relative paths stay relative).
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}
