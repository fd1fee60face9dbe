import Yams

/// The comments of a session file, each tied to the entry it sits on or above, so that
/// a save writes them back beside the same entries whatever else changed.
///
/// An entry is named by its path: mapping keys joined by `/` (`nodes/eq1/parameters/gain`),
/// list items by their text without spaces (`connections/tone1->trim`), or by `from->to`
/// for a `{ from:, to: }` item.
public struct SessionComments: Sendable {
    /// A run of comment lines above an entry ("" for a blank line between them), or the
    /// comment at the end of its line.
    struct Attached: Sendable {
        var path: String
        var above: [String]
        var after: String?
    }

    /// In file order.
    var attached: [Attached] = []
    /// Comments after the last entry.
    var closing: [String] = []

    public init() {}

    public var isEmpty: Bool { attached.isEmpty && closing.isEmpty }

    /// Path of an entry of a list, as the reader and the writer both name it.
    static func itemPath(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != " " && $0 != "\t" }.map(Character.init))
    }

    static func connectionPath(from: String, to: String) -> String { itemPath(from + "->" + to) }
}

extension SessionComments {
    /// Finds the comments in `text`, whose composed tree is `root`. Thread: any.
    static func read(_ text: String, root: Node) -> SessionComments {
        var layout = Layout(text)
        layout.walk(root, path: "")
        return layout.comments()
    }

    /// Where entries start, and which characters are inside scalars, line by line.
    private struct Layout {
        let lines: [[Unicode.Scalar]]
        /// The path of the first entry that starts on a line (1-based lines).
        var entries: [Int: String] = [:]
        /// Lines that are the content of a block scalar (`|`, `>`).
        var blockLines = Set<Int>()
        /// Quoted scalars, as column ranges (0-based) per line.
        var quoted: [Int: [Range<Int>]] = [:]

        init(_ text: String) {
            lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                var scalars = Array(line.unicodeScalars)
                if scalars.last == "\r" { scalars.removeLast() }
                return scalars
            }
        }

        mutating func walk(_ node: Node, path: String) {
            switch node {
            case .scalar(let scalar):
                note(scalar.style, at: node.mark)
            case .mapping(let mapping):
                for (key, value) in mapping {
                    guard case .scalar(let name) = key else { continue }
                    note(name.style, at: key.mark)
                    let inner = path.isEmpty ? name.string : path + "/" + name.string
                    enter(inner, at: key.mark)
                    walk(value, path: inner)
                }
            case .sequence(let sequence):
                for (index, item) in sequence.enumerated() {
                    let inner = path + "/" + Self.identity(of: item, index: index)
                    enter(inner, at: item.mark)
                    walk(item, path: inner)
                }
            }
        }

        static func identity(of item: Node, index: Int) -> String {
            switch item {
            case .scalar(let scalar): return SessionComments.itemPath(scalar.string)
            case .mapping(let mapping):
                if case .scalar(let from)? = mapping["from"], case .scalar(let to)? = mapping["to"] {
                    return SessionComments.connectionPath(from: from.string, to: to.string)
                }
                return "#\(index)"
            case .sequence: return "#\(index)"
            }
        }

        mutating func enter(_ path: String, at mark: Mark?) {
            guard let line = mark?.line, entries[line] == nil else { return }
            entries[line] = path
        }

        mutating func note(_ style: Node.Scalar.Style, at mark: Mark?) {
            guard let mark else { return }
            switch style {
            case .literal, .folded: noteBlock(after: mark.line)
            case .singleQuoted, .doubleQuoted: noteQuoted(from: mark.line, column: mark.column - 1, double: style == .doubleQuoted)
            default: break
            }
        }

        /// A block scalar's content: the lines after its header that are blank or at
        /// least as indented as its first non-blank line.
        mutating func noteBlock(after header: Int) {
            var indent: Int?
            var line = header + 1
            while line <= lines.count {
                let scalars = lines[line - 1]
                let leading = scalars.prefix { $0 == " " }.count
                if leading < scalars.count {
                    if indent == nil { indent = leading }
                    if leading < indent! { break }
                }
                blockLines.insert(line)
                line += 1
            }
        }

        /// A quoted scalar runs from its opening quote to the matching close, maybe over lines.
        mutating func noteQuoted(from startLine: Int, column startColumn: Int, double: Bool) {
            let quote: Unicode.Scalar = double ? "\"" : "'"
            var line = startLine, column = startColumn + 1, spanStart = startColumn
            while line <= lines.count {
                let scalars = lines[line - 1]
                while column < scalars.count {
                    let scalar = scalars[column]
                    if double && scalar == "\\" {
                        column += 2
                        continue
                    }
                    if scalar == quote {
                        if !double && column + 1 < scalars.count && scalars[column + 1] == "'" {
                            column += 2
                            continue
                        }
                        quoted[line, default: []].append(spanStart..<(column + 1))
                        return
                    }
                    column += 1
                }
                quoted[line, default: []].append(spanStart..<max(spanStart, scalars.count))
                line += 1
                column = 0
                spanStart = 0
            }
        }

        /// Where a comment starts on a line: a `#` at the start or after a blank, outside quotes.
        func commentStart(_ line: Int) -> Int? {
            guard !blockLines.contains(line) else { return nil }
            let scalars = lines[line - 1]
            let spans = quoted[line] ?? []
            for (column, scalar) in scalars.enumerated() where scalar == "#" {
                if column > 0 && scalars[column - 1] != " " && scalars[column - 1] != "\t" { continue }
                if spans.contains(where: { $0.contains(column) }) { continue }
                return column
            }
            return nil
        }

        func comments() -> SessionComments {
            var result = SessionComments()
            var pending: [String] = []
            var lastEntry: String?
            var blankAfterEntry = false
            func text(_ line: Int, from column: Int) -> String {
                var scalars = lines[line - 1][column...]
                while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
                return String(String.UnicodeScalarView(scalars))
            }
            for line in 1...max(1, lines.count) where line <= lines.count {
                let scalars = lines[line - 1]
                let isBlank = scalars.allSatisfy { $0 == " " || $0 == "\t" }
                if isBlank {
                    if !pending.isEmpty && pending.last != "" { pending.append("") }
                    if pending.isEmpty && lastEntry != nil { blankAfterEntry = true }
                    continue
                }
                let start = commentStart(line)
                let onlyComment = start.map { column in scalars[..<column].allSatisfy { $0 == " " || $0 == "\t" } } ?? false
                if onlyComment {
                    // A blank line that set a comment apart from the entry above stays.
                    if pending.isEmpty && blankAfterEntry { pending.append("") }
                    pending.append(text(line, from: start!))
                    continue
                }
                blankAfterEntry = false
                let after = start.map { text(line, from: $0) }
                if let path = entries[line] {
                    while pending.last == "" { pending.removeLast() }
                    if !pending.isEmpty || after != nil {
                        result.attached.append(Attached(path: path, above: pending, after: after))
                    }
                    pending = []
                    lastEntry = path
                } else if let after, let lastEntry {
                    // A line that continues an entry (a flow mapping over lines).
                    result.attached.append(Attached(path: lastEntry, above: [], after: after))
                }
            }
            while pending.last == "" { pending.removeLast() }
            result.closing = pending
            return result
        }
    }
}
