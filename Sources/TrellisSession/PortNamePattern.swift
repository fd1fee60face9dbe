import Foundation

/// JACK port names in sessions are exact names or POSIX extended regular expressions
/// that must match the whole name (`system:capture_[1-4]`, `mic[1-8]`), the dialect
/// `jack_get_ports` and the JACK head node speak.
enum PortNamePattern {
    static func matches(_ pattern: String, _ name: String, at location: SourceLocation) throws(SessionError) -> Bool {
        if pattern == name { return true }
        let expression: NSRegularExpression
        do { expression = try NSRegularExpression(pattern: "^(?:\(pattern))$") } catch {
            throw SessionError("jack: \"\(pattern)\" is not a valid port pattern (POSIX extended regular expression)", at: location)
        }
        return expression.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }
}
