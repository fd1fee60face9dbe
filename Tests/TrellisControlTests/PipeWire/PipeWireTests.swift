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

    /// What one recording on both sessions heard.
    private struct Recording {
        /// Frames recorded, peak and broken cycles of tone.wav, then of take.wav.
        var takes: [(name: String, frames: Int, peak: Float, glitches: [Int])] = []
        var xruns = 0
        var states: [String] = []
    }

    /// Records `seconds` on both sessions while `during` runs.
    private func record(_ rig: PipeWireRig, _ tone: String, _ take: String, seconds: Double, during: () throws -> Void) throws -> Recording {
        // The sessions' recorders have run since they started, before their connection: new takes.
        for (socket, name) in [(tone, "tone"), (take, "take")] {
            #expect(try rig.ask(socket, "record stop").hasPrefix("ok"))
            #expect(try rig.ask(socket, "record start \(name) overwrite").hasPrefix("ok"))
        }
        let xruns = try Self.xruns(rig, [tone, take])
        let started = Date()
        try during()
        let left = seconds - Date().timeIntervalSince(started)
        if left > 0 { usleep(UInt32(left * 1_000_000)) }
        for socket in [tone, take] { #expect(try rig.ask(socket, "record stop").hasPrefix("ok")) }
        var recording = Recording(xruns: try Self.xruns(rig, [tone, take]) - xruns)
        recording.states = try [tone, take].map { try rig.ask($0, "status") }
        for name in ["tone", "take"] {
            let samples = try AudioFileReader(path: rig.folder + "/\(name).wav").readAll()[0]
            recording.takes.append((name, samples.count, samples.map(abs).max() ?? 0, Self.brokenCycles(samples)))
        }
        return recording
    }

    private static func xruns(_ rig: PipeWireRig, _ sockets: [String]) throws -> Int {
        try sockets.reduce(0) { sum, socket in
            let status = try rig.ask(socket, "status")
            let field = status.split(separator: " ").first { $0.hasPrefix("xruns=") } ?? "xruns=0"
            return sum + (Int(field.dropFirst(6)) ?? 0)
        }
    }

    /// Records `seconds` on both sessions while `during` runs. What the tone session
    /// rendered must be an unbroken 1 kHz sine of amplitude 0.5 (x[n+1] = 2cos(w)x[n] -
    /// x[n-1] holds wherever no cycle was dropped or repeated), and so must what crossed
    /// the graph to the take session, but for at most `crossingGlitches` broken cycles.
    /// A recording with more broken cycles is taken again: while it has xruns (the
    /// machine was busy elsewhere), and up to three takes in all without.
    private func recordUnbroken(
        _ rig: PipeWireRig, _ tone: String, _ take: String, seconds: Double, crossingGlitches: Int = 0, during: () throws -> Void = {}
    ) throws {
        let allowed = ["tone": 0, "take": crossingGlitches]
        func broken(_ recording: Recording) -> Bool {
            recording.takes.contains { $0.glitches.count > allowed[$0.name]! }
        }
        // Under load PipeWire's dummy driver can wake a client late without the client
        // seeing an xrun, so a broken take is taken again up to four times even without
        // one (three were not always enough while the rest of the suite kept both cores busy).
        var takes = 0
        let recording = try undisturbedRun({ takes += 1; return try record(rig, tone, take, seconds: seconds, during: during) },
                                           disturbed: { broken($0) && ($0.xruns > 0 || takes < 5) })
        for (name, frames, peak, glitches) in recording.takes {
            #expect(frames > Int(seconds * 48_000 * 0.8), "\(name): \(frames) frames")
            #expect(abs(peak - 0.5) < 1e-3, "\(name): peak \(peak)")
            #expect(glitches.count <= allowed[name]!, "\(name): the sine broke at frames \(glitches.prefix(10)) (\(recording.xruns) xruns): \(recording.states)")
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
