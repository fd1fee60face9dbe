import Foundation
import Glibc
import Testing
import TrellisControl

/// A peer client that restarts (a synth, a recorder, a NetJACK2 master): the session's
/// connections to it come back with its ports; one broken on purpose does not.
extension LiveControlTests {
    private static let throughSession = """
        version: 1
        jack: { inputs: [in_1], outputs: [out_1] }
        nodes:
          in: { unit: input, channels: 1 }
          out: { unit: output, channels: 1 }
        connections:
          - in -> out
        """

    @Test("a connection to a client that restarts is made again when its port returns")
    func connectionFollowsRestartedPeer() throws {
        let rig = try LiveRig(session: Self.throughSession, arguments: ["--threads", "1"])
        defer { rig.stop() }
        var metro = try Self.metronome(rig)
        defer { Self.end(metro) }
        #expect(try rig.ask("jack connect in_1 metro:120_bpm").hasPrefix("ok"))
        #expect(Self.peers(of: "trellis:in_1", rig) == ["metro:120_bpm"])

        Self.end(metro)
        // Generous: on a loaded machine the server may take seconds to notice a killed
        // client, and the head node retries pending connections on its own period.
        try Self.waitUntil(within: 10) { Self.peers(of: "trellis:in_1", rig).isEmpty }
        // The old client must be gone before the new one registers, or the server names
        // the new one metro-01 (its port is not the one the session connects).
        try Self.waitUntil(within: 10) { Self.peers(of: "metro:120_bpm", rig, listed: true).isEmpty }
        metro = try Self.metronome(rig)
        try Self.waitUntil(within: 10) { Self.peers(of: "trellis:in_1", rig) == ["metro:120_bpm"] }
    }

    @Test("a connection someone breaks on purpose stays broken")
    func brokenConnectionStaysBroken() throws {
        let rig = try LiveRig(session: Self.throughSession, arguments: ["--threads", "1"])
        defer { rig.stop() }
        let metro = try Self.metronome(rig)
        defer { Self.end(metro) }
        #expect(try rig.ask("jack connect in_1 metro:120_bpm").hasPrefix("ok"))
        let cut = Process()
        cut.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cut.arguments = ["jack_disconnect", "-s", rig.serverName, "metro:120_bpm", "trellis:in_1"]
        try cut.run()
        cut.waitUntilExit()
        #expect(cut.terminationStatus == 0)
        // Longer than the retry interval of pending connections: nothing brings it back.
        usleep(1_500_000)
        #expect(Self.peers(of: "trellis:in_1", rig).isEmpty)
    }

    /// jack_metro as the peer: one output port, `metro:120_bpm`.
    private static func metronome(_ rig: LiveRig) throws -> Process {
        let metro = Process()
        metro.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        metro.arguments = ["jack_metro", "-b", "120", "-n", "metro"]
        metro.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": rig.serverName]) { $1 }
        metro.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        metro.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try metro.run()
        try waitUntil(within: 5) { !peers(of: "metro:120_bpm", rig, listed: true).isEmpty }
        return metro
    }

    /// SIGKILL: jack_metro sets no handler, and a test runner's children may inherit
    /// SIGTERM ignored. A client killed outright is safe; its server cleans up.
    private static func end(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// What `port` is connected to, from `jack_lsp -c`; with `listed`, [port] when it exists at all.
    private static func peers(of port: String, _ rig: LiveRig, listed: Bool = false) -> [String] {
        let lsp = Process()
        lsp.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        lsp.arguments = ["jack_lsp", "-s", rig.serverName, "-c"]
        let pipe = Pipe()
        lsp.standardOutput = pipe
        lsp.standardError = FileHandle(forWritingAtPath: "/dev/null")
        guard (try? lsp.run()) != nil else { return [] }
        let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
        lsp.waitUntilExit()
        guard let peers = jackPeers(of: port, inListing: lines) else { return [] }
        return listed ? [port] : peers
    }

    private static func waitUntil(within seconds: Double, line: Int = #line, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw TestFailure("line \(line): not so within \(seconds) s") }
            usleep(20_000)
        }
    }
}
