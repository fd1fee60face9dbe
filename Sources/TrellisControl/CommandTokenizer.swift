import TrellisChain
/// Splits a command line into words: runs of non-blank characters, or double-quoted
/// text in which `\"` and `\\` stand for `"` and `\`. Thread: any.
public enum CommandTokenizer {
    public static func words(_ line: String) throws(ControlError) -> [String] {
        // Scalar by scalar: every delimiter is one scalar, and a 60 KB line is not
        // broken into graphemes.
        var words: [String] = []
        var current = String.UnicodeScalarView()
        var inWord = false
        var quoted = false
        var escaped = false
        for scalar in line.unicodeScalars {
            if quoted {
                if escaped {
                    current.append(scalar)
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    quoted = false
                } else {
                    current.append(scalar)
                }
                continue
            }
            if scalar == " " || scalar == "\t" {
                if inWord { words.append(String(current)) }
                current = String.UnicodeScalarView()
                inWord = false
            } else if scalar == "\"" {
                quoted = true
                inWord = true
            } else if isControl(scalar) {
                throw ControlError(.syntax, "the line holds a control character (U+\(hex(scalar))); quote nothing but text")
            } else {
                current.append(scalar)
                inWord = true
            }
        }
        if quoted { throw ControlError(.syntax, "a quoted word is not closed: add the closing \"") }
        if inWord { words.append(String(current)) }
        return words
    }

    /// C0 controls, DEL, NEL, and the Unicode line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// A word as the line protocol writes it: quoted when it holds blanks or quotes.
    public static func quote(_ word: String) -> String { ChainText.quote(word) }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
