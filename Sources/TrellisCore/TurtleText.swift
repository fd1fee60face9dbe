/// Text written into Turtle (LV2 data and state). Thread: any.
public enum TurtleText {
    /// `text` as a short double-quoted Turtle string: backslash, quote and line breaks
    /// escaped.
    public static func quoted(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
