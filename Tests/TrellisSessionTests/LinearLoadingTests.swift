import Foundation
import Testing
import TrellisCore
import TrellisGraph
@testable import TrellisSession

@Suite("Loading in time linear in the session")
struct LinearLoadingTests {
    /// A chain of `count` gains whose connections are written end to start: each new
    /// connection's destination already feeds the whole rest of the chain.
    static func reversedChain(_ count: Int) -> String {
        let names = ["src"] + (0..<count).map { "g\($0)" } + ["out"]
        let nodes = (0..<count).map { "  g\($0): { unit: gain, channels: 1 }" }.joined(separator: "\n")
        let connections = zip(names, names.dropFirst()).reversed().map { "  - \($0) -> \($1)" }.joined(separator: "\n")
        return """
            version: 1
            nodes:
              src: { unit: tone, channels: 1 }
            \(nodes)
              out: { unit: output, channels: 1 }
            connections:
            \(connections)
            """
    }

    @Test("20,000 gains connected end to start load in seconds (a search per connection took over ten minutes)")
    func reversedChainLoads() throws {
        let started = Date()
        let session = try load(Self.reversedChain(20_000))
        #expect(session.graph.nodes.count == 20_002 && session.graph.connections.count == 20_001)
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test("a 2 MB unit name, plugin URI or file path is refused at its position for its length, before any lookup",
          arguments: [("unit: " + String(repeating: "g", count: 2_000_000), "a unit name or plugin URI of at most 4096 bytes"),
                      ("lv2: http://example.org/" + String(repeating: "a", count: 2_000_000), "a unit name or plugin URI of at most 4096 bytes"),
                      ("unit: player, file: /tmp/" + String(repeating: "p", count: 2_000_000), "a path is at most 4096")])
    func longNamesAreRefused(field: String, message: String) throws {
        let text = "version: 1\nnodes:\n  fx: { \(field) }\n  out: { unit: output }\nconnections: [fx -> out]\n"
        let error = try #require(try loadError(text))
        #expect(error.location.line == 3 && error.message.contains(message), "\(error.description.prefix(300))")
        #expect(error.description.utf8.count < 1000)
    }

    @Test("the connection that closes a cycle is the one named, at its line, with the cycle")
    func firstClosingConnection() throws {
        let text = """
            version: 1
            nodes:
              src: { unit: tone, channels: 2 }
              mix: { unit: mixer, inputs: 2 }
              g1: { unit: gain, channels: 2 }
              g2: { unit: gain, channels: 2 }
            connections:
              - src -> mix.0
              - g2 -> mix.1
              - g1 -> g2
              - mix -> g1
            """
        #expect {
            try load(text)
        } throws: { error in
            let error = error as! SessionError
            return error.location.line == 11 && error.message == "connection \"mix -> g1\": the connection would make a cycle: mix -> g1 -> g2 -> mix"
        }
    }

    @Test("the search finds the first prefix of connections with a cycle, a node feeding itself included")
    func searchFindsFirst() {
        let a = NodeID(rawValue: 1), b = NodeID(rawValue: 2), c = NodeID(rawValue: 3)
        #expect(FeedbackSearch.firstCycle([(a, b), (b, c)]) == nil)
        let found = FeedbackSearch.firstCycle([(a, b), (b, c), (c, a), (b, a)])
        #expect(found?.index == 2 && found?.cycle == [c, a, b, c])
        #expect(FeedbackSearch.firstCycle([(a, b), (c, c)])?.index == 1)
    }
}
