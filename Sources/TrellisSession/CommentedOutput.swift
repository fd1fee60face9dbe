/// The lines of a session as the writer makes them, each with the path of the entry it
/// writes, turned into text with the comments put back beside their entries.
struct CommentedOutput {
    private var lines: [(text: String, path: String)] = []

    mutating func line(_ text: String, _ path: String) { lines.append((text, path)) }

    func text(with comments: SessionComments) -> String {
        let written = Set(lines.map(\.path))
        var above: [String: [String]] = [:]
        var after: [String: String] = [:]
        for entry in comments.attached {
            if written.contains(entry.path) {
                above[entry.path, default: []] += entry.above
                if let comment = entry.after { after[entry.path] = after[entry.path].map { $0 + " " + comment } ?? comment }
            } else if let home = Self.home(of: entry.path, among: written) {
                above[home, default: []] += entry.above + (entry.after.map { [$0] } ?? [])
            }
        }
        var text = ""
        for line in lines {
            let indent = String(line.text.prefix { $0 == " " })
            for comment in above[line.path] ?? [] { text += comment.isEmpty ? "\n" : indent + comment + "\n" }
            var body = line.text
            if let comment = after[line.path] {
                // After a block scalar's header (`state: |`), not after its content.
                if let newline = body.firstIndex(of: "\n") { body.insert(contentsOf: "  " + comment, at: newline) } else { body += "  " + comment }
            }
            text += body + "\n"
        }
        for comment in comments.closing { text += comment + "\n" }
        return text
    }

    /// Where the comments of an entry written another way go (an item of a list written
    /// in flow style, a field folded into a short form): above the nearest enclosing
    /// entry that is written. An entry that is gone (a node removed) takes its comments
    /// with it: they never move up to a whole section.
    static func home(of path: String, among written: Set<String>) -> String? {
        var components = path.split(separator: "/", omittingEmptySubsequences: false)
        while components.count > 2 {
            components.removeLast()
            let candidate = components.joined(separator: "/")
            if written.contains(candidate) { return candidate }
        }
        return nil
    }
}
