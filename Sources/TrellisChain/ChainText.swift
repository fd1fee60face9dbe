/// A chain written as one line of text, as the C interface takes it: words separated by
/// blanks; a word in double or single quotes keeps its blanks, and inside double quotes
/// a backslash keeps the next character.
public enum ChainText {
    public static func words(_ text: String) throws(CommandError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                word.append(character)
                escaped = false
            } else if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"", character == "\\" {
                    escaped = true
                } else {
                    word.append(character)
                }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if quote != nil || escaped {
            throw CommandError("chain: the text ends inside a quoted word: \(text)", kind: .argument)
        }
        if inWord { words.append(word) }
        return words
    }

    /// A word as `words` reads it back: as it is when it has no blank, quote or
    /// backslash, else in double quotes with `"` and `\` escaped.
    public static func quote(_ word: String) -> String {
        guard word.isEmpty || word.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "\\" }) else { return word }
        var text = "\""
        for character in word {
            if character == "\"" || character == "\\" { text.append("\\") }
            text.append(character)
        }
        return text + "\""
    }
}
