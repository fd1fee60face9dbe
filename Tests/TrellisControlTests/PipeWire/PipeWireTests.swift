import Foundation
import Testing
import TrellisAudioFile
import TrellisTestSupport

/// The live behaviour on PipeWire's JACK (`pw-jack`), where most desktop Linux systems run
/// JACK programs: a tone session feeds a recording session across the JACK graph.
@Suite("Live sessions on PipeWire's JACK", .serialized, .liveAudio)
struct PipeWireTests {
    /// A 1 kHz sine at amplitude 0.5 on a JACK output port, recorded as rendered to tone.wav.
    static let toneSession = """
        version: 1
        jack: { client: tone, outputs: [out_1] }
        nodes:
          tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
          out: { unit: output, channels: 1 }
        connections:
          - tone1 -> out
        recorders:
          tone: { source: tone1.0, file: tone.wav }
        """

    /// What arrives on a JACK input port, connected to the tone's, recorded to take.wav.
    static let takeSession = """
        version: 1
        jack: { client: take, inputs: [in_1], outputs: [out_1], connect: ["tone:out_1 -> in_1"] }
        nodes:
          in: { unit: input, channels: 1 }
          out: { unit: output, channels: 1 }
        connections:
          - in -> out
        recorders:
          take: { source: in.0, file: take.wav }
        """

    private func start() throws -> (rig: PipeWireRig, tone: String, take: String) {
        let rig = try PipeWireRig()
        do {
            let tone = try rig.run(Self.toneSession, name: "tone")
            let take = try rig.run(Self.takeSession, name: "take")
            try rig.waitUntil("take:in_1 connected to tone:out_1") { rig.peers(of: "take:in_1") == ["tone:out_1"] }
            return (rig, tone, take)
        } catch {
            rig.stop()
            throw error
        }
    }

    /// Records `seconds` on both sessions while `during` runs. What the tone session
    /// rendered must be an unbroken 1 kHz sine of amplitude 0.5 (x[n+1] = 2cos(w)x[n] -
    /// x[n-1] holds wherever no cycle was dropped or repeated), and so must what crossed
    /// the graph to the take session, but for at most `crossingGlitches` broken cycles.
    private func recordUnbroken(
        _ rig: PipeWireRig, _ tone: String, _ take: String, seconds: Double, crossingGlitches: Int = 0, during: () throws -> Void = {}
    ) throws {
        // The sessions' recorders have run since they started, before their connection: new takes.
        for (socket, name) in [(tone, "tone"), (take, "take")] {
            #expect(try rig.ask(socket, "record stop").hasPrefix("ok"))
            #expect(try rig.ask(socket, "record start \(name) overwrite").hasPrefix("ok"))
        }
        let started = Date()
        try during()
        let left = seconds - Date().timeIntervalSince(started)
        if left > 0 { usleep(UInt32(left * 1_000_000)) }
        for socket in [tone, take] { #expect(try rig.ask(socket, "record stop").hasPrefix("ok")) }
        let states = try [tone, take].map { try rig.ask($0, "status") }
        for (name, allowed) in [("tone", 0), ("take", crossingGlitches)] {
            let samples = try AudioFileReader(path: rig.folder + "/\(name).wav").readAll()[0]
            #expect(samples.count > Int(seconds * 48_000 * 0.8), "\(name): \(samples.count) frames")
            let peak = samples.map(abs).max() ?? 0
            #expect(abs(peak - 0.5) < 1e-3, "\(name): peak \(peak)")
            let glitches = Self.brokenCycles(samples)
            #expect(glitches.count <= allowed, "\(name): the sine broke at frames \(glitches.prefix(10)): \(states)")
        }
    }

    /// Where a 1 kHz sine breaks its recurrence, one frame per broken stretch (breaks
    /// less than 1024 frames apart are one).
    private static func brokenCycles(_ samples: [Float]) -> [Int] {
        let c = Float(2 * cos(2 * Double.pi * 1000 / 48_000))
        var breaks: [Int] = []
        for n in 1..<(samples.count - 1) where abs(samples[n + 1] - c * samples[n] + samples[n - 1]) >= 1e-3 {
            if let last = breaks.last, n - last < 1024 { continue }
            breaks.append(n)
        }
        return breaks
    }

    @Test("sessions register their ports on PipeWire, connect by their rules, and audio crosses the graph unbroken")
    func audioThroughPipeWire() throws {
        let (rig, tone, take) = try start()
        defer { rig.stop() }
        let ports = try rig.tool(["pw-jack", "jack_lsp"]).output.split(separator: "\n").map(String.init)
        for port in ["tone:out_1", "take:in_1", "take:out_1"] { #expect(ports.contains(port), "\(ports)") }
        #expect(try rig.ask(take, "status").contains("period=256"))
        try recordUnbroken(rig, tone, take, seconds: 1)
    }

    @Test("a buffer size forced while rolling reaches every session within a second, and the audio stays unbroken")
    func bufferSizeChangesWhileRolling() throws {
        let (rig, tone, take) = try start()
        defer { rig.stop() }
        // PipeWire may run the graph out of order for a cycle as the quantum changes: at most
        // one broken cycle per change crosses between clients. Each session's own rendering
        // stays unbroken.
        try recordUnbroken(rig, tone, take, seconds: 3, crossingGlitches: 4) {
            for quantum in [128, 512, 64, 256] {
                #expect(try rig.tool(["pw-metadata", "-n", "settings", "0", "clock.force-quantum", "\(quantum)"]).status == 0)
                try rig.waitUntil("both sessions at \(quantum) frames", within: 1) {
                    [tone, take].allSatisfy { ((try? rig.ask($0, "status")) ?? "").contains("period=\(quantum) ") }
                }
                usleep(300_000)
            }
        }
    }

    @Test("when PipeWire goes away the sessions wait, and when it returns they run again with their connections")
    func serverLossAndReturn() throws {
        let (rig, tone, take) = try start()
        defer { rig.stop() }
        rig.stopDaemon()
        try rig.waitUntil("both sessions interrupted") {
            [tone, take].allSatisfy { ((try? rig.ask($0, "status")) ?? "").contains("jack=interrupted") }
        }
        try rig.startDaemon()
        try rig.waitUntil("both sessions running again", within: 15) {
            [tone, take].allSatisfy { ((try? rig.ask($0, "status")) ?? "").contains("jack=running") }
        }
        try rig.waitUntil("take:in_1 connected to tone:out_1 again") { rig.peers(of: "take:in_1") == ["tone:out_1"] }
        try recordUnbroken(rig, tone, take, seconds: 1)
    }
}
