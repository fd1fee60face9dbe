import Foundation
import Testing
import TrellisControl
import TrellisSession
import TrellisTestSupport

extension LiveControlTests {
    /// A 0.5 sine through subgraph node `strip` (a gain `trim`, then a gain `level`)
    /// into the output.
    static let stripSession = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        nodes:
          tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
          strip: { subgraph: strip }
          out: { unit: output, channels: 1 }
        connections:
          - tone1 -> strip -> out
        subgraphs:
          strip:
            nodes:
              in: { unit: input, channels: 1 }
              trim: { unit: gain, channels: 1 }
              level: { unit: gain, channels: 1, parameters: { gain: -6 } }
              out: { unit: output, channels: 1 }
            connections:
              - in -> trim -> level -> out
        """

    @Test("an inner node is set, read, listed and metered by its path")
    func innerNodeByPath() throws {
        let rig = try LiveRig(session: Self.stripSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("set strip/trim gain -10") == "ok -10")
        #expect(try client.request("get strip/trim gain") == "ok -10")
        // The session's spelling reaches the same parameter.
        #expect(try client.request("set strip level.gain -2") == "ok -2")
        #expect(try client.request("get strip/level gain") == "ok -2")
        let params = try client.request("params strip")
        #expect(params.contains("trim.gain=-10") && params.contains("level.gain=-2"), "\(params)")
        let inner = try Self.reading(client, "strip/trim")
        #expect(abs(try #require(level("peak", in: inner)) - (decibels(0.5) - 10)) < 0.05, "\(inner)")
        let whole = try Self.reading(client, "strip")
        #expect(abs(try #require(level("peak", in: whole)) - (decibels(0.5) - 12)) < 0.05, "\(whole)")
        let missing = try client.request("params strip/trimm")
        #expect(missing.hasPrefix("error UNKNOWN_NODE") && missing.contains("strip/trim"), "\(missing)")
        let rewire = try client.request("remove strip/trim")
        #expect(rewire.hasPrefix("error UNSUPPORTED") && rewire.contains("inside subgraph node strip"), "\(rewire)")
    }

    @Test("an inner node's bypass passes its input on")
    func innerBypass() throws {
        let rig = try LiveRig(session: Self.stripSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("bypass strip/level on") == "ok on")
        let reading = try Self.reading(client, "strip")
        #expect(abs(try #require(level("peak", in: reading)) - decibels(0.5)) < 0.05, "\(reading)")
    }

    @Test("a bypassed subgraph node passes its input on, and its bypass is saved")
    func subgraphBypass() throws {
        let rig = try LiveRig(session: Self.stripSession)
        defer { rig.stop() }
        let client = try rig.client()
        let before = try Self.reading(client, "out")
        #expect(abs(try #require(level("peak", in: before)) - (decibels(0.5) - 6)) < 0.05, "\(before)")
        #expect(try client.request("bypass strip on") == "ok on")
        let bypassed = try Self.reading(client, "out")
        #expect(abs(try #require(level("peak", in: bypassed)) - decibels(0.5)) < 0.05, "\(bypassed)")
        let saved = rig.folder + "/saved.yaml"
        #expect(try client.request("save \(saved)").hasPrefix("ok"))
        let document = try SessionParser.parse(String(contentsOfFile: saved, encoding: .utf8), file: saved)
        #expect(document.graph.nodes.first { $0.name == "strip" }?.bypass == true)
        #expect(try client.request("bypass strip off") == "ok off")
        let back = try Self.reading(client, "out")
        #expect(abs(try #require(level("peak", in: back)) - (decibels(0.5) - 6)) < 0.05, "\(back)")
    }
}
