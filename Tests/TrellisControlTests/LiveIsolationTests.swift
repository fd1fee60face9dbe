import Foundation
import Testing
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    /// Eight tones, seven through isolated eg-amps and the eighth through the isolated
    /// fault fixture `fixture` (not yet triggered), mixed.
    static func isolatedBranches(_ fixture: String) -> String {
        var nodes = "", connections = ""
        for branch in 1...8 {
            nodes += "  tone\(branch): { unit: tone, channels: 1, parameters: { freq: \(200 * branch) } }\n"
            let plugin = branch == 8 ? "\"urn:trellis:fixtures:\(fixture)\"" : amp
            nodes += "  fx\(branch): { lv2: \(plugin), isolate: true }\n"
            connections += "  - tone\(branch) -> fx\(branch)\n  - fx\(branch) -> mix.\(branch - 1)\n"
        }
        return """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
            \(nodes)  mix: { unit: mixer, inputs: 8, input-channels: 1 }
              out: { unit: output, channels: 2 }
            connections:
            \(connections)  - mix -> out

            """
    }

    @Test("live, a plugin that segfaults, aborts or hangs in its own process is silenced and named within 100 ms, and restart brings it back",
          arguments: [("segfaults", "SIGSEGV"), ("aborts", "SIGABRT"), ("hangs", "missed its deadline")])
    func isolatedFaultIsContainedLive(fixture: String, cause: String) throws {
        let search = try BridgeSupport.faultyFolder() + ":" + (ProcessInfo.processInfo.environment["LV2_PATH"] ?? "/usr/lib/lv2")
        let rig = try LiveRig(session: Self.isolatedBranches(fixture), environment: ["LV2_PATH": search])
        defer { rig.stop() }
        let watcher = try rig.client(), client = try rig.client()
        #expect(try watcher.request("watch events=warning").hasPrefix("ok events=warning"))
        let before = try Self.reading(client, "fx8")
        #expect(try #require(level("peak", in: before)) > -20, "the fixture passes its tone: \(before)")
        let xruns = try Self.count("xruns", client)

        #expect(try client.request("set fx8 trigger 1") == "ok 1")
        let triggered = Date()
        let line = try #require(try watcher.readLine(timeout: 2))
        let elapsed = Date().timeIntervalSince(triggered)
        #expect(line.hasPrefix("event warning node fx8 ") && line.contains(cause), "\(line)")
        #expect(elapsed < 0.1, "the fault was heard \(Int(elapsed * 1000)) ms after the trigger")
        #expect(try #require(level("peak", in: try Self.reading(client, "fx8"))) < -150, "silenced")
        for branch in 1...7 {
            #expect(try #require(level("peak", in: try Self.reading(client, "fx\(branch)", settle: 0, window: 0.02))) > -20, "branch \(branch) plays on")
        }
        #expect(try Self.count("xruns", client) - xruns <= 1)

        #expect(try client.request("set fx8 trigger 0") == "ok 0")
        let restarted = try client.request("restart fx8")
        #expect(restarted.hasPrefix("ok restarted (it had ") && restarted.contains(cause), "\(restarted)")
        #expect(try #require(level("peak", in: try Self.reading(client, "fx8"))) > -20, "plays again after restart")
    }
}
