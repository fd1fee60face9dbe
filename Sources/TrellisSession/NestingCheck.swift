/// Refuses session text nested deeper than any session needs, before the YAML parser
/// sees it: the parser and the tree built from it recurse once a level, so 5,000 nested
/// brackets overflowed the stack (SIGSEGV in `validate`, and in a live session on `ctl
/// load`, whose queue has a smaller stack). A single pass over the bytes, linear in the
/// file's size.
///
/// It counts what opens a level: block indentation, `- ` entries on one line, and `[` or
/// `{` where a value starts or inside a flow collection. Quoted text, comments and block
/// scalars (`|`, `>`) are skipped. It may count a level YAML would not (never fewer),
/// which only matters past the limit.
enum NestingCheck {
    /// Deep enough for any session (they use about 6), shallow enough for any stack.
    static let limit = 64

    static func check(_ text: String, file: String, limit: Int = limit, of kind: String = "a session") throws(SessionError) {
        var scanner = Scanner(limit: limit)
        var line = 1
        for row in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if let column = scanner.scan(Array(row)) {
                throw SessionError("nested deeper than \(limit) levels; \(kind) needs far fewer", at: SourceLocation(file: file, line: line, column: column))
            }
            line += 1
        }
    }

    private struct Scanner {
        let limit: Int
        /// Indentation of the open block levels.
        var indents: [Int] = []
        var flowDepth = 0
        /// The quote a scalar opened on an earlier line and has not closed.
        var quote: UInt8?
        /// Lines indented past this belong to a block scalar.
        var blockScalarParent: Int?

        init(limit: Int) { self.limit = limit }

        /// The 1-based column at which the limit is passed, or nil.
        mutating func scan(_ line: [UInt8]) -> Int? {
            var index = 0
            let space = UInt8(ascii: " ")
            while index < line.count, line[index] == space { index += 1 }
            let indent = index
            let blank = index == line.count || line[index] == UInt8(ascii: "#") || line[index] == UInt8(ascii: "\r")
            if let parent = blockScalarParent {
                if blank || indent > parent { return nil }
                blockScalarParent = nil
            }
            var depth = indents.count
            if quote == nil && flowDepth == 0 {
                if blank { return nil }
                while let last = indents.last, last > indent { indents.removeLast() }
                if indents.last != indent { indents.append(indent) }
                depth = indents.count
                if depth > limit { return index + 1 }
                while index + 1 < line.count, line[index] == UInt8(ascii: "-"), line[index + 1] == space {
                    depth += 1
                    if depth > limit { return index + 1 }
                    index += 2
                    while index < line.count, line[index] == space { index += 1 }
                }
            }
            var valueStarts = true
            while index < line.count {
                let byte = line[index]
                if let open = quote {
                    if open == UInt8(ascii: "\"") && byte == UInt8(ascii: "\\") {
                        index += 2
                        continue
                    }
                    if byte == open {
                        if open == UInt8(ascii: "'"), index + 1 < line.count, line[index + 1] == open {
                            index += 2
                            continue
                        }
                        quote = nil
                    }
                    index += 1
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    if valueStarts { quote = byte }
                case UInt8(ascii: "#") where index == 0 || line[index - 1] == space || line[index - 1] == UInt8(ascii: "\t"):
                    return nil
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    if valueStarts || flowDepth > 0 {
                        flowDepth += 1
                        if depth + flowDepth > limit { return index + 1 }
                    }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if flowDepth > 0 { flowDepth -= 1 }
                case UInt8(ascii: "|"), UInt8(ascii: ">"):
                    if valueStarts && flowDepth == 0 && Self.onlyIndicatorsFollow(line, after: index) {
                        blockScalarParent = indent
                        return nil
                    }
                default:
                    break
                }
                // A value starts after `: `, `- `, `,`, `[`, `{` and spaces that follow them.
                if byte == space || byte == UInt8(ascii: "\t") {
                    // unchanged
                } else if byte == UInt8(ascii: ":") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    valueStarts = byte != UInt8(ascii: ":") || index + 1 == line.count || line[index + 1] == space
                } else {
                    valueStarts = false
                }
                index += 1
            }
            return nil
        }

        /// A block scalar header: chomping and indentation indicators, then at most a comment.
        private static func onlyIndicatorsFollow(_ line: [UInt8], after index: Int) -> Bool {
            var next = index + 1
            while next < line.count, line[next] == UInt8(ascii: "+") || line[next] == UInt8(ascii: "-")
                || (line[next] >= UInt8(ascii: "0") && line[next] <= UInt8(ascii: "9")) { next += 1 }
            while next < line.count, line[next] == UInt8(ascii: " ") || line[next] == UInt8(ascii: "\r") { next += 1 }
            return next == line.count || line[next] == UInt8(ascii: "#")
        }
    }
}
