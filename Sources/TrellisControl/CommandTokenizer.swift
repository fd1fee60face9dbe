/// Splits a command line into words: runs of non-blank characters, or double-quoted
/// text in which `\"` and `\\` stand for `"` and `\`. Thread: any.
public enum CommandTokenizer {
    public static func words(_ line: String) throws(ControlError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        var escaped = false
        for character in line {
            if quoted {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                } else {
                    current.append(character)
                }
                continue
            }
            if character == " " || character == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else if character == "\"" {
                quoted = true
                inWord = true
            } else if character.isNewline || character.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw ControlError(.syntax, "the line holds a control character (U+\(hex(character))); quote nothing but text")
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quoted { throw ControlError(.syntax, "a quoted word is not closed: add the closing \"") }
        if inWord { words.append(current) }
        return words
    }

    /// A word as the line protocol writes it: quoted when it holds blanks or quotes.
    public static func quote(_ word: String) -> String {
        guard word.isEmpty || word.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "\\" }) else { return word }
        var text = "\""
        for character in word {
            if character == "\"" || character == "\\" { text.append("\\") }
            text.append(character)
        }
        return text + "\""
    }

    private static func hex(_ character: Character) -> String {
        let value = character.unicodeScalars.first!.value
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
