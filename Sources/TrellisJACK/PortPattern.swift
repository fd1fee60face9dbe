import Glibc

/// A POSIX extended regular expression that must match a whole port name, the dialect
/// `jack_get_ports` speaks. Thread: control.
final class PortPattern {
    let text: String
    private var expression = regex_t()

    init(_ text: String) throws(JACKError) {
        self.text = text
        let code = regcomp(&expression, Self.anchored(text), REG_EXTENDED | REG_NOSUB)
        if code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            regerror(code, &expression, &buffer, 256)
            throw .invalidPattern(text, reason: buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
    }

    deinit { regfree(&expression) }

    func matches(_ name: String) -> Bool {
        regexec(&expression, name, 0, nil, 0) == 0
    }

    /// The pattern as JACK should see it: anchored at both ends.
    static func anchored(_ text: String) -> String { "^(\(text))$" }
}
