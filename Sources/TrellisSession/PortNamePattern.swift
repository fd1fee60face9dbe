import Foundation

/// JACK port names in sessions are exact names or POSIX extended regular expressions
/// that must match the whole name (`system:capture_[1-4]`, `mic[1-8]`), the dialect
/// `jack_get_ports` and the JACK head node speak.
public enum PortNamePattern {
    static func matches(_ pattern: String, _ name: String, at location: SourceLocation) throws(SessionError) -> Bool {
        if pattern == name { return true }
        guard let expression = expression(pattern) else {
            throw SessionError("jack: \"\(pattern)\" is not a valid port pattern (POSIX extended regular expression)", at: location)
        }
        return expression.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }

    /// Whether `pattern` names `name`; a pattern that does not compile names only itself.
    public static func matches(_ pattern: String, _ name: String) -> Bool {
        if pattern == name { return true }
        return expression(pattern)?.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }

    private static func expression(_ pattern: String) -> NSRegularExpression? {
        try? NSRegularExpression(pattern: "^(?:\(pattern))$")
    }
}
