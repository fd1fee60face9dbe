import Foundation
import Testing
@testable import TrellisSession

@Suite("Comments through a load and a save")
struct CommentTests {
    static let commented = """
        # The header: what this session is for.
        # Two lines of it.
        version: 1   # the format
        jack:
          outputs:
            - left     # the left speaker
            - right
          connect:
            - left -> system:playback_1   # wired at the desk
        nodes:
          tone1: { unit: tone, parameters: { freq: 440 } }   # the test tone
          # The trim, before the output.
          trim:
            unit: gain
            parameters:
              gain: -6      # # not a second comment
              # bypass stays off
          verb:
            lv2: http://example.org/plugins/absent
            preset: "Hall # 2"   # the big one
            state: |   # as the plugin wrote it
              # this line is state, not a comment
              "quoted # text" .
          out: output

        # The wiring, set apart by a blank line.
        connections:
          - tone1 -> trim      # dry
          - { from: trim, to: verb }
          - verb -> out
        # The end.
        """

    static func saved(_ text: String, edit: (LoadedSession) throws -> Void = { _ in }) throws -> String {
        let folder = try temporaryFolder()
        let session = try load(text, in: folder)
        try edit(session)
        try session.save()
        return try String(contentsOfFile: folder + "/test.yaml", encoding: .utf8)
    }

    static func line(_ text: String, containing fragment: String) -> String? {
        text.split(separator: "\n").first { $0.contains(fragment) }.map(String.init)
    }

    @Test("every comment is written back once, in the order written")
    func everyCommentOnce() throws {
        let text = try Self.saved(Self.commented)
        let comments = [
            "# The header: what this session is for.", "# Two lines of it.", "# the format", "# the left speaker",
            "# wired at the desk", "# the test tone", "# The trim, before the output.", "# # not a second comment",
            "# bypass stays off", "# the big one", "# as the plugin wrote it", "# The wiring, set apart by a blank line.", "# dry", "# The end.",
        ]
        var searchFrom = text.startIndex
        for comment in comments {
            #expect(text.components(separatedBy: comment).count == 2, "\(comment) once in:\n\(text)")
            if let found = text.range(of: comment, range: searchFrom..<text.endIndex) { searchFrom = found.upperBound } else {
                Issue.record("\(comment) out of order in:\n\(text)")
            }
        }
    }

    @Test("a comment stays on the line of its entry, or just above it")
    func commentsStayBesideTheirEntries() throws {
        let text = try Self.saved(Self.commented)
        #expect(Self.line(text, containing: "version:")?.hasSuffix("# the format") == true, "\(text)")
        #expect(Self.line(text, containing: "tone1:")?.hasSuffix("# the test tone") == true, "\(text)")
        #expect(Self.line(text, containing: "gain: -6")?.hasSuffix("# # not a second comment") == true, "\(text)")
        #expect(Self.line(text, containing: "tone1 -> trim")?.hasSuffix("# dry") == true, "\(text)")
        #expect(Self.line(text, containing: "left -> system:playback_1")?.hasSuffix("# wired at the desk") == true, "\(text)")
        #expect(text.contains("  # The trim, before the output.\n  trim:\n"), "\(text)")
        #expect(text.contains("\n\n# The wiring, set apart by a blank line.\nconnections:\n"), "\(text)")
        #expect(text.hasPrefix(SessionWriter.header + "\n# The header: what this session is for.\n# Two lines of it.\nversion: 1"), "\(text)")
        #expect(text.hasSuffix("# The end.\n"), "\(text)")
    }

    @Test("hashes inside plugin state and quoted text are content, kept as they were")
    func hashesInsideScalarsAreNotComments() throws {
        let text = try Self.saved(Self.commented)
        let document = try SessionParser.parse(text, file: "saved")
        let verb = try #require(document.graph.nodes.first { $0.name == "verb" })
        #expect(verb.state == "# this line is state, not a comment\n\"quoted # text\" .\n")
        #expect(verb.preset == "Hall # 2")
        #expect(Self.line(text, containing: "preset:") == "    preset: \"Hall # 2\"  # the big one", "\(text)")
        #expect(text.components(separatedBy: "# this line is state, not a comment").count == 2)
    }

    @Test("saving a saved session gives the same text")
    func saveIsStable() throws {
        let once = try Self.saved(Self.commented)
        #expect(try Self.saved(once) == once)
    }

    @Test("a changed value keeps the comment on its line")
    func changedValueKeepsComment() throws {
        let text = try Self.saved(Self.commented) { session in
            try session.graph.setParameter(session.graph.node(named: "trim").id, "gain", -12)
        }
        #expect(Self.line(text, containing: "gain:") == "      gain: -12  # # not a second comment", "\(text)")
    }

    @Test("the comments of a node removed while running go with it")
    func removedNodeTakesItsComments() throws {
        let text = try Self.saved(Self.commented) { session in
            let graph = session.graph
            try graph.removeNode(graph.node(named: "tone1").id)
        }
        #expect(!text.contains("# the test tone"), "\(text)")
        #expect(!text.contains("# dry"), "\(text)")
        #expect(text.contains("# The trim, before the output."), "\(text)")
    }
}
