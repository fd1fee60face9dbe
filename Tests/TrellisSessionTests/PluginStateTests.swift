import Foundation
import Testing
import TrellisCore
import TrellisGraph
import TrellisLV2
import TrellisSession

@Suite("Plugin state in sessions")
struct PluginStateTests {
    static let documentation = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/session-format.md").path

    /// The first yaml block after `marker` in docs/session-format.md, unindented.
    static func documentedSession(after marker: String) throws -> String {
        let text = try String(contentsOfFile: documentation, encoding: .utf8)
        let section = try #require(text.range(of: marker)).upperBound
        let open = try #require(text.range(of: "```yaml\n", range: section..<text.endIndex))
        let close = try #require(text.range(of: "```", range: open.upperBound..<text.endIndex))
        let lines = text[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        let indent = lines.first.map { $0.prefix { $0 == " " }.count } ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }.joined(separator: "\n")
    }

    static func stateText(of node: String, in session: String) throws -> String {
        let loaded = try MIDISessionTests.loaded(session)
        let unit = try #require(try loaded.graph.node(named: node).unit as? any StatefulUnit)
        return try unit.stateText()
    }

    @Test("the documented hand-written state reaches eg-params, which saves back each property it was given")
    func documentedShortForm() throws {
        let saved = try Self.stateText(of: "params", in: Self.documentedSession(after: "**Plugin state**"))
        #expect(saved.contains(#/eg-params#int>\s+"?3"?(\^\^xsd:int)?\s*[;.\]]/#))
        #expect(saved.contains(#/eg-params#double>\s+"?0\.25/#))
        #expect(saved.contains(#/eg-params#string>\s+"Hello, Trellis"/#))
        #expect(saved.contains("eg-params.lv2/manifest.ttl"))
    }

    @Test("the state Trellis saves loads back as it was written")
    func savedFormLoadsBack() throws {
        let first = try Self.stateText(of: "params", in: Self.documentedSession(after: "**Plugin state**"))
        let session = """
            version: 1
            nodes:
              params:
                lv2: http://lv2plug.in/plugins/eg-params
                state: |
            \(first.split(separator: "\n").map { "          " + $0 }.joined(separator: "\n"))
              out: output
            connections: []
            """
        let second = try Self.stateText(of: "params", in: session)
        // The plugin lists its properties in its own order (so which one ends without
        // ";" varies); the statements are what must hold.
        func statements(_ text: String) -> Set<String> {
            Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t;")) })
        }
        #expect(statements(second) == statements(first))
    }

    @Test("a hand-written state that is not Turtle is refused at the node, with the line and column in the state")
    func shortFormErrors() throws {
        let session = """
            version: 1
            nodes:
              params:
                lv2: http://lv2plug.in/plugins/eg-params
                state: |
                  int = 3
              out: output
            connections: []
            """
        do {
            _ = try MIDISessionTests.loaded(session)
            Issue.record("the session loaded")
        } catch {
            #expect("\(error)".contains("params"))
            #expect("\(error)".contains("not Turtle: line 1, column"))
        }
    }

    @Test("eg-params' properties set as parameters in a session are saved as parameters and load back")
    func propertiesAsParameters() throws {
        let session = """
            version: 1
            nodes:
              params:
                lv2: http://lv2plug.in/plugins/eg-params
                parameters: { int: 4, double: 0.75, bool: on }
              out: output
            connections: []
            """
        let saved = SessionWriter.text(try MIDISessionTests.loaded(session).document())
        #expect(saved.contains("int: 4"))
        #expect(saved.contains("double: 0.75"))
        let unit = try #require(try MIDISessionTests.loaded(saved).graph.node(named: "params").unit as? LV2PluginUnit)
        #expect(try unit.parameterValue(try unit.parameter(named: "int").address) == 4)
        #expect(try unit.parameterValue(try unit.parameter(named: "bool").address) == 1)
    }
}
