import Foundation
import Testing
@testable import TrellisSession

@Suite("Subgraphs expand within bounds")
struct ExpansionLimitTests {
    /// Definitions `s1`…`sN`, each holding two nodes of the one before, `s0` a chain of
    /// `gains` gains: `sN` is 2^N · gains gains in 2^(N+1) − 2 subgraph nodes.
    static func doubling(_ levels: Int, gains: Int = 1) -> String {
        let chain = (1...gains).map { "g\($0): gain" }.joined(separator: ", ")
        let links = (["in"] + (1...gains).map { "g\($0)" } + ["out"])
        let connections = zip(links, links.dropFirst()).map { "\($0) -> \($1)" }.joined(separator: ", ")
        var text = "version: 1\nsubgraphs:\n  s0:\n    nodes: { in: input, \(chain), out: output }\n    connections: [\(connections)]\n"
        for level in 1...levels {
            text += "  s\(level):\n    nodes: { in: input, a: { subgraph: s\(level - 1) }, b: { subgraph: s\(level - 1) }, out: output }\n"
            text += "    connections: [in -> a, a -> b, b -> out]\n"
        }
        return text + "nodes:\n  tone1: tone\n  top: { subgraph: s\(levels) }\n  out: output\nconnections: [tone1 -> top, top -> out]\n"
    }

    @Test("2^20 uses of subgraphs stop at 4,096 with an error")
    func subgraphUsesRefused() throws {
        let error = try #require(try loadError(Self.doubling(20)))
        #expect(error.message.hasSuffix("the session uses subgraphs more than 4096 times (counting uses inside subgraphs)"), "\(error)")
    }

    @Test("2^11 uses of a 64-gain subgraph (131,072 gains) stop at 65,536 nodes with an error")
    func nodeCountRefused() throws {
        let error = try #require(try loadError(Self.doubling(11, gains: 64)))
        #expect(error.message.hasSuffix("the session expands to more than 65536 nodes (a subgraph's nodes count at every use)"), "\(error)")
    }

    @Test("the same definitions at 10 levels (1,024 gains) load")
    func boundedExpansionLoads() throws {
        #expect(try loadError(Self.doubling(10)) == nil)
    }

    @Test("a chain of 40 definitions, each using the next, is refused past 32 levels")
    func deepChainRefused() throws {
        var text = "version: 1\nsubgraphs:\n"
        for level in 0..<40 {
            let inner = level == 39 ? "g: gain" : "g: { subgraph: s\(level + 1) }"
            text += "  s\(level):\n    nodes: { in: input, \(inner), out: output }\n    connections: [in -> g, g -> out]\n"
        }
        text += "nodes:\n  tone1: tone\n  top: { subgraph: s0 }\n  out: output\nconnections: [tone1 -> top, top -> out]\n"
        let error = try #require(try loadError(text))
        #expect(error.message == "node \"g\": subgraphs nest more than 32 deep here", "\(error)")
    }
}
