import Foundation
import Testing
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    static let amp = "http://lv2plug.in/plugins/eg-amp"

    /// A player looping a file of NaN into eg-amp, which passes it on and is silenced.
    static func nanSession(in folder: String) throws -> String {
        try FloatWAV.writeNaN(from: 0, frames: 4_800, to: folder + "/nan.wav")
        return """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              src: { unit: player, file: \(folder)/nan.wav, loops: -1 }
              amp: { lv2: \(amp) }
              out: { unit: output, channels: 1 }
            connections: [src -> amp, amp -> out]
            """
    }

    @Test("a watcher hears within 100 ms that a node produced non-finite samples, by the node's name")
    func watchHearsNonFiniteNode() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rig = try LiveRig(session: Self.nanSession(in: folder))
        defer { rig.stop() }
        let watcher = try rig.client(), client = try rig.client()
        #expect(try watcher.request("watch events=warning").hasPrefix("ok events=warning"))
        // The warning of the session's first program may still be on its way; let it pass.
        usleep(100_000)
        while (try? watcher.readLine(timeout: 0.05)) != nil {}
        // An edit publishes a new program, in which the plugin starts unsilenced and faults again.
        #expect(try client.request("add spare gain") == "ok spare")
        let published = Date()
        let line = try #require(try watcher.readLine(timeout: 2))
        let elapsed = Date().timeIntervalSince(published)
        // The player is where the NaN enters the graph: it is silenced and reset there.
        #expect(line.hasPrefix("event warning node src (player) produced non-finite samples from "), "\(line)")
        #expect(line.hasSuffix(" s; silenced and reset; it plays again once its output is finite"), "\(line)")
        #expect(elapsed < 0.1, "the warning came \(Int(elapsed * 1000)) ms after the edit")
    }

    @Test("status counts the times a node was silenced, as its warnings say")
    func statusCountsSilencedNodes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rig = try LiveRig(session: Self.nanSession(in: folder))
        defer { rig.stop() }
        let watcher = try rig.client(), client = try rig.client()
        #expect(try watcher.request("watch events=warning").hasPrefix("ok events=warning"))
        for name in ["a", "b"] { #expect(try client.request("add \(name) gain") == "ok \(name)") }
        var warnings = 0
        while let line = try? watcher.readLine(timeout: 1) { if line.contains("silenced and reset") { warnings += 1 } }
        let status = try client.request("status")
        let field = try #require(status.split(separator: " ").first { $0.hasPrefix("nodes-silenced=") }, "\(status)")
        let counted = try #require(Int(field.dropFirst("nodes-silenced=".count)))
        #expect(warnings >= 2 && counted >= warnings, "\(warnings) warnings heard, status: \(status)")
    }

    @Test("trellis run logs a warning naming the node that produced non-finite samples")
    func runLogsNonFiniteNode() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rig = try LiveRig(session: Self.nanSession(in: folder))
        defer { rig.stop() }
        let expected = "node src (player) produced non-finite samples from "
        let log = rig.log(containing: expected)
        let line = log.split(separator: "\n").first { $0.contains(expected) }
        #expect(line?.contains(" warning ") == true, "\(log)")
    }
}
