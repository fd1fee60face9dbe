/// Scalars written so that YAML reads back exactly the text meant: plain where that
/// is unambiguous, double-quoted otherwise.
///
/// A saved session may land where a shell reads it (a start-up file named by mistake or
/// by someone else), so no text from a session's values can become a command there:
/// every value stays on its `key:` line, plain only with characters a shell treats as
/// a word, and in double quotes with `$` and `` ` `` escaped, which YAML reads back and
/// a shell leaves inert.
enum YAMLText {
    /// Words a YAML 1.1 or 1.2 reader would turn into something other than text.
    private static let specialWords: Set<String> = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~",
    ]

    static func scalar(_ text: String) -> String {
        isPlainSafe(text) ? text : doubleQuoted(text)
    }

    /// True when `text` can be written plain: a number our strict parser reads, or a
    /// word with no character YAML gives a meaning to.
    static func isPlainSafe(_ text: String) -> Bool {
        if case .success = StrictScalar.number(text) { return true }
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
        if specialWords.contains(text.lowercased()) { return false }
        if StrictScalar.ambiguity(text) != nil { return false }
        if "-?:,[]{}#&*!|>'\"%@` \t~".unicodeScalars.contains(first) { return false }
        if last == " " || last == ":" { return false }
        if (first >= "0" && first <= "9") || first == "." || first == "+" { return false }
        if text.contains(": ") || text.contains(" #") { return false }
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || ",[]{}\"'".unicodeScalars.contains(scalar) { return false }
            if scalar.value >= 0x80 && !scalar.properties.isAlphabetic { return false }
        }
        // A connection's arrow stays readable; any other redirection is quoted.
        return !text.replacing(" -> ", with: " ").unicodeScalars.contains { shellSpecial.unicodeScalars.contains($0) }
    }

    /// Characters that make a shell do more than read a word.
    private static let shellSpecial = "$`;&|<>()\\*?!="

    static func doubleQuoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "$": result += "\\u0024"
            case "`": result += "\\u0060"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (scalar.value >= 0x80 && scalar.value < 0xA0)
                    || scalar.value == 0xFEFF || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
