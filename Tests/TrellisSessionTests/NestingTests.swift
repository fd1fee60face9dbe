import Foundation
import Testing
@testable import TrellisSession

@Suite("Nesting deeper than a session needs is an error, never a crash")
struct NestingTests {
    static let message = "nested deeper than 64 levels; a session needs far fewer"

    /// Columns and lines where the 65th level opens, counting the block levels around it.
    @Test("5,000 nested brackets, braces, indented mappings or dashes: an error where level 65 opens",
          arguments: [
            ("brackets", "version: 1\nnodes:\n  a: " + String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000) + "\n", 3, 68),
            ("braces", "version: 1\nnodes:\n  a: " + String(repeating: "{x: ", count: 5_000) + "1" + String(repeating: "}", count: 5_000) + "\n", 3, 254),
            ("mappings", "version: 1\nnodes:\n" + (0..<5_000).map { String(repeating: " ", count: $0 + 1) + "k:\n" }.joined(), 66, 65),
            ("dashes", "version: 1\nnodes:\n  a:\n    " + String(repeating: "- ", count: 5_000) + "x\n", 4, 127),
          ])
    func deepNestingRefused(kind: String, text: String, line: Int, column: Int) throws {
        let error = try #require(try loadError(text), "\(kind)")
        #expect(error.message == Self.message, "\(kind)")
        #expect(error.location.line == line && error.location.column == column, "\(kind): \(error.location)")
    }

    @Test("brackets in quotes, comments and block scalars do not count, and 60 levels pass")
    func textDoesNotCount() throws {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let text = """
            version: 1
            nodes:
              # \(deep)
              hold:
                lv2: "http://example.org/\(deep)"
                state: |
                  \(deep)
              tone1: tone
              out: output
            connections: [tone1 -> out]

            """
        #expect(try loadError(text) == nil)
        try NestingCheck.check("a: " + String(repeating: "[", count: 60) + String(repeating: "]", count: 60), file: "t")
    }
}
