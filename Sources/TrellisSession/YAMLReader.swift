import TrellisCore
import Yams

/// Reads a composed YAML tree field by field, each scalar as text, and turns every
/// mistake into a positioned `SessionError` that says what was expected.
struct YAMLReader {
    /// The file as named in messages.
    let file: String
    /// Merged mappings and entries merge keys may still bring in, for the whole file: anchors that merge each
    /// other ten at a time would otherwise expand a few lines into billions.
    private let mergeBudget = MergeBudget()

    static let mergeLimit = 10_000

    private final class MergeBudget {
        var left = YAMLReader.mergeLimit
    }

    init(file: String) {
        self.file = file
    }

    /// A mapping's entries in order, keys as text.
    struct Entry {
        var key: String
        var keyNode: Node
        var value: Node
    }

    /// A mapping whose keys were checked against the ones a place allows.
    struct Fields {
        var entries: [Entry]
        var location: SourceLocation

        subscript(key: String) -> Node? { entries.first { $0.key == key }?.value }
        func keyLocation(_ key: String, reader: YAMLReader) -> SourceLocation {
            entries.first { $0.key == key }.map { reader.location($0.keyNode) } ?? location
        }
    }

    private func mergeLimitError(_ node: Node) -> SessionError {
        var failure = error("merge keys bring in more than \(Self.mergeLimit) entries in this file (do anchors merge each other over and over?)", node)
        failure.stopsReading = true
        return failure
    }

    func location(_ node: Node) -> SourceLocation {
        let mark = node.mark
        return SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    func error(_ message: String, _ node: Node) -> SessionError {
        SessionError(message, at: location(node))
    }

    static func kind(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): scalar.string.isEmpty && scalar.style == .plain ? "nothing" : "the text \(quoted(scalar.string))"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }

    /// Tags outside YAML's core schema (`!thing`) mean nothing to a session.
    func checkTag(_ node: Node) throws(SessionError) {
        let name = node.tag.description
        guard name.hasPrefix("tag:yaml.org,2002:") || name.isEmpty || name == "!" else {
            throw error("the tag \(name) means nothing in a session file; remove it", node)
        }
    }

    /// The entries of a mapping; keys must be plain text and not repeat. A merge key
    /// (`<<: *anchor`, or a list of them) brings in the entries of the mappings it names
    /// that the mapping does not set itself (YAML's merge key; earlier sources win).
    func entries(_ node: Node, expected: String) throws(SessionError) -> [Entry] {
        try checkTag(node)
        guard case .mapping(let mapping) = node else {
            throw error("expected \(expected), found \(Self.kind(node))", node)
        }
        var result: [Entry] = []
        var seen: [String: Int] = [:]
        var merged: [Node] = []
        for (key, value) in mapping {
            if case .scalar(let scalar) = key, scalar.string == "<<", scalar.style == .plain {
                if case .sequence(let sources) = value { merged += Array(sources) } else { merged.append(value) }
                continue
            }
            try checkTag(key)
            guard case .scalar(let scalar) = key, !scalar.string.isEmpty else {
                throw error("expected a name as the key here, found \(Self.kind(key))", key)
            }
            if let earlier = seen[scalar.string] {
                throw error("\(quoted(scalar.string)) appears twice in this mapping (first at line \(location(result[earlier].keyNode).line))", key)
            }
            seen[scalar.string] = result.count
            result.append(Entry(key: scalar.string, keyNode: key, value: value))
        }
        for source in merged {
            // Every source read counts, so repeated merges that add nothing still cost.
            mergeBudget.left -= 1
            guard mergeBudget.left >= 0 else {
                throw mergeLimitError(source)
            }
            guard case .mapping = source else {
                throw error("a merge key (<<) takes a mapping or a list of mappings (usually *anchor), found \(Self.kind(source))", source)
            }
            for entry in try entries(source, expected: "a mapping to merge") where seen[entry.key] == nil {
                mergeBudget.left -= 1
                guard mergeBudget.left >= 0 else {
                    throw mergeLimitError(source)
                }
                seen[entry.key] = result.count
                result.append(entry)
            }
        }
        return result
    }

    /// A mapping with only `allowed` keys (and every `required` one); an unknown key
    /// is an error that suggests the closest allowed one.
    func fields(_ node: Node, expected: String, allowed: [String], required: [String] = []) throws(SessionError) -> Fields {
        let list = try entries(node, expected: expected)
        for entry in list where !allowed.contains(entry.key) {
            let suggestions = Suggestions.closest(to: entry.key, among: allowed)
            let hint = suggestions.isEmpty ? " (expected one of: \(allowed.joined(separator: ", ")))" : Suggestions.didYouMean(suggestions)
            throw error("unknown key \(quoted(entry.key)) in \(expected)\(hint)", entry.keyNode)
        }
        for key in required where !list.contains(where: { $0.key == key }) {
            throw error("\(expected) needs a \(quoted(key)) key", node)
        }
        return Fields(entries: list, location: location(node))
    }

    /// A scalar's text; `expected` names what belongs here.
    func text(_ node: Node, expected: String) throws(SessionError) -> String {
        try checkTag(node)
        guard case .scalar(let scalar) = node else {
            throw error("expected \(expected), found \(Self.kind(node))", node)
        }
        if scalar.string.isEmpty && scalar.style == .plain {
            throw error("expected \(expected), found nothing", node)
        }
        return scalar.string
    }

    /// The longest path a session may name, in bytes: the kernel's PATH_MAX.
    static let pathLimit = 4096

    /// A file's path: text no longer than `pathLimit`, without NUL.
    func path(_ node: Node, expected: String) throws(SessionError) -> String {
        let path = try text(node, expected: expected)
        guard path.utf8.count <= Self.pathLimit else {
            throw error("expected \(expected), found one \(path.utf8.count) bytes long; a path is at most \(Self.pathLimit)", node)
        }
        guard !path.utf8.contains(0) else { throw error("expected \(expected), found one with a NUL character in it", node) }
        return path
    }

    /// A sequence's items.
    func items(_ node: Node, expected: String) throws(SessionError) -> [Node] {
        try checkTag(node)
        guard case .sequence(let sequence) = node else {
            throw error("expected \(expected), found \(Self.kind(node))", node)
        }
        return Array(sequence)
    }

    func integer(_ node: Node, expected: String, in range: ClosedRange<Int>) throws(SessionError) -> Int {
        let text = try text(node, expected: expected)
        switch StrictScalar.integer(text) {
        case .success(let value):
            guard range.contains(value) else {
                throw error("expected \(expected) in \(range.lowerBound)...\(range.upperBound), found \(value)", node)
            }
            return value
        case .failure(let failure):
            throw error("expected \(expected), \(failure.explanation)", node)
        }
    }

    func number(_ node: Node, expected: String, in range: ClosedRange<Double>) throws(SessionError) -> Double {
        let text = try text(node, expected: expected)
        switch StrictScalar.number(text) {
        case .success(let value):
            guard range.contains(value) else {
                throw error("expected \(expected) in \(format(range.lowerBound))...\(format(range.upperBound)), found \(text)", node)
            }
            return value
        case .failure(let failure):
            throw error("expected \(expected), \(failure.explanation)", node)
        }
    }

    func boolean(_ node: Node, expected: String) throws(SessionError) -> Bool {
        let text = try text(node, expected: expected)
        if let value = StrictScalar.boolean(text) { return value }
        if StrictScalar.yaml11Booleans.contains(text.lowercased()) {
            throw error("expected \(expected) as true or false, found \(quoted(text)) (YAML 1.1 spellings are not accepted)", node)
        }
        throw error("expected \(expected) as true or false, found \(quoted(text))", node)
    }

    /// A name for nodes, subgraphs, recorders and ports: letters, digits, `_` and `-`.
    func name(_ node: Node, what: String) throws(SessionError) -> String {
        let text = try text(node, expected: "a \(what) name")
        guard text.unicodeScalars.count <= SessionName.maximumLength else {
            throw error("a \(what) name may have at most \(SessionName.maximumLength) characters; this one has \(text.unicodeScalars.count)", node)
        }
        guard SessionName.isValid(text) else {
            throw error("\(quoted(text)) is not a valid \(what) name: use letters, digits, _ and -, starting with a letter or _", node)
        }
        return text
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

public enum SessionName {
    public static let maximumLength = 128

    static func isValid(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= maximumLength else { return false }
        func letter(_ c: Unicode.Scalar) -> Bool { (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" }
        return letter(first) && text.unicodeScalars.allSatisfy { letter($0) || ($0 >= "0" && $0 <= "9") || $0 == "-" }
    }
}
