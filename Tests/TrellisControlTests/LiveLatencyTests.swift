import Foundation
import Testing
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    /// A looping 0.5 s stereo noise file split in two: through x42 dpl (64 frames) and
    /// swh's look-ahead limiter (`delay_s` seconds), far below their thresholds so at
    /// unity gain, and dry; a mixer sums them; a recorder takes the sum.
    static func latencySession(in folder: String) throws -> String {
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sox.arguments = ["sox", "-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "floating-point", folder + "/noise.wav", "synth", "0.5", "whitenoise", "vol", "0.1"]
        try sox.run()
        sox.waitUntilExit()
        return """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              src: { unit: player, file: \(folder)/noise.wav, loops: -1 }
              split: splitter
              dpl: { lv2: "http://gareus.org/oss/lv2/dpl#stereo" }
              lim: { lv2: "http://plugin.org.uk/swh-plugins/lookaheadLimiter", parameters: { delay_s: 0.01 } }
              mix: { unit: mixer, inputs: 2 }
              out: output
            connections:
              - src -> split
              - split.0 -> dpl
              - dpl -> lim
              - lim -> mix.0
              - split.1 -> mix.1
              - mix -> out
            recorders:
              take: { source: mix.0, file: \(folder)/take.wav }
            """
    }

    /// The largest difference between `take` and twice the looping `loop`, at the lag
    /// that fits best: small when the two paths arrived together, about the signal
    /// itself when they arrived apart (a comb filter fits no lag).
    static func misalignment(_ take: [Float], loop: [Float]) -> Float {
        let count = loop.count
        let start = take.firstIndex { $0 != 0 } ?? 0
        let probes = Array(stride(from: start + 2_048, to: take.count, by: 997).prefix(16))
        guard probes.count == 16 else { return .infinity }
        var best: (lag: Int, error: Float) = (0, .infinity)
        for lag in 0..<count {
            let error = probes.map { abs(take[$0] - 2 * loop[(($0 - lag) % count + count) % count]) }.max()!
            if error < best.error { best = (lag, error) }
        }
        return (start + 2_048..<take.count).map { abs(take[$0] - 2 * loop[(($0 - best.lag) % count + count) % count]) }.max() ?? .infinity
    }

    /// The capture latency range JACK gives a port (`jack_lsp -l`).
    static func captureLatency(of port: String, server: String) throws -> String? {
        let lsp = Process()
        lsp.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        lsp.arguments = ["jack_lsp", "-s", server, "-l", port]
        let pipe = Pipe()
        lsp.standardOutput = pipe
        try lsp.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        lsp.waitUntilExit()
        return text.split(separator: "\n").first { $0.contains("capture latency") }.map { String($0.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespaces) }
    }

    /// Polls `status` until the graph's latency is `frames`, or 3 s pass.
    static func waitForLatency(_ frames: Int, _ client: ControlClient) throws -> Bool {
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline {
            if try client.request("status").contains(" latency=\(frames) ") { return true }
            usleep(20_000)
        }
        return false
    }

    @Test("a limiter beside a dry path plays aligned live; a new latency is re-compensated, announced and published to JACK")
    func liveLatency() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rig = try LiveRig(session: Self.latencySession(in: folder))
        defer { rig.stop() }
        let client = try rig.client(), watcher = try rig.client()
        #expect(try watcher.request("watch events=graph").hasPrefix("ok"))
        let loop = try firstChannel(ofFile: folder + "/noise.wav")

        #expect(try Self.waitForLatency(64 + 480, client))
        #expect(try Self.captureLatency(of: "trellis:out_1", server: rig.serverName) == "[ 544 544 ] frames")
        usleep(600_000)
        #expect(try client.request("record stop").hasPrefix("ok take idle"))
        #expect(Self.misalignment(try firstChannel(ofFile: folder + "/take.wav"), loop: loop) < 1e-4)

        #expect(try client.request("set lim delay_s 0.02").hasPrefix("ok"))
        let event = try #require(try watcher.readLine(timeout: 3))
        #expect(event.hasPrefix("event graph node lim ("), "\(event)")
        #expect(event.hasSuffix("latency now 960 frames (was 480); paths re-aligned"), "\(event)")
        #expect(try Self.waitForLatency(64 + 960, client))
        let deadline = Date().addingTimeInterval(3)
        var published = try Self.captureLatency(of: "trellis:out_1", server: rig.serverName)
        while published != "[ 1024 1024 ] frames", Date() < deadline {
            usleep(20_000)
            published = try Self.captureLatency(of: "trellis:out_1", server: rig.serverName)
        }
        #expect(published == "[ 1024 1024 ] frames")
        #expect(try client.request("record start overwrite").hasPrefix("ok take recording"))
        usleep(600_000)
        #expect(try client.request("record stop").hasPrefix("ok take idle"))
        #expect(Self.misalignment(try firstChannel(ofFile: folder + "/take.wav"), loop: loop) < 1e-4)
    }
}
