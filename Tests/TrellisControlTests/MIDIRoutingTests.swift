import Foundation
import Testing
import TrellisControl
import TrellisTestSupport

/// A JACK example program (jackd2's own tools) run against the rig's server.
final class JACKTool: @unchecked Sendable {
    let process = Process()
    let outputPath: String

    /// `stdbuf -oL` so that what the tool prints reaches the file as it happens.
    init(_ arguments: [String], server: String, folder: String) throws {
        outputPath = folder + "/\(arguments[0])-\(UUID().uuidString.prefix(6)).txt"
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["stdbuf", "-oL"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server]) { $1 }
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then SIGKILL after a second (jack_midiseq ignores SIGTERM).
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(1)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Runs `jack_connect` or `jack_disconnect` to completion.
    static func run(_ arguments: [String], server: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server]) { $1 }
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits until `port` exists on the server.
    static func waitForPort(_ port: String, server: String) throws {
        let deadline = Date().addingTimeInterval(10)
        while try run(["jack_lsp", port], server: server) != 0 || !portListed(port, server: server) {
            guard Date() < deadline else { throw TestFailure("port \(port) did not appear") }
            usleep(50_000)
        }
    }

    private static func portListed(_ port: String, server: String) -> Bool {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["jack_lsp"]
        process.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server]) { $1 }
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return false }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: "\n").contains { $0 == port }
    }
}

/// jack_midiseq's loop: C4 at the start of each half second, D#4 at the quarter.
let sequencerArguments = ["jack_midiseq", "seq", "24000", "0", "60", "8000", "12000", "63", "8000"]

extension LiveControlTests {
    static let twoPianos = """
        version: 1
        jack:
          client: trellis
          midi-inputs: [keys_a, keys_b]
        nodes:
          piano_a: { lv2: http://drobilla.net/plugins/mda/EPiano }
          piano_b: { lv2: http://drobilla.net/plugins/mda/EPiano }
          mix: { unit: mixer, inputs: 2 }
          out: output
        connections:
          - keys_a -> piano_a
          - keys_b -> piano_b
          - piano_a -> mix.0
          - piano_b -> mix.1
          - mix -> out
        """

    @Test("notes into one JACK MIDI input sound only in the instrument connected to it; ctl connect adds a MIDI link live")
    func notesReachOnlyTheirInstrument() throws {
        let rig = try LiveRig(session: Self.twoPianos)
        defer { rig.stop() }
        let sequencer = try JACKTool(sequencerArguments, server: rig.serverName, folder: rig.folder)
        defer { sequencer.stop() }
        try JACKTool.waitForPort("seq:out", server: rig.serverName)
        #expect(try JACKTool.run(["jack_connect", "seq:out", "trellis:keys_b"], server: rig.serverName) == 0)
        let client = try rig.client()
        // Over a second: two loops of the sequence, whatever the phase.
        let a = try Self.reading(client, "piano_a", settle: 0.2, window: 1.0)
        let b = try Self.reading(client, "piano_b", settle: 0, window: 1.0)
        #expect(try #require(level("peak", in: b)) > -40, "piano_b plays the notes of keys_b: \(b)")
        #expect(try #require(level("peak", in: a)) < -120, "piano_a hears nothing: \(a)")

        #expect(try client.request("connect keys_b piano_a") == "ok")
        let both = try Self.reading(client, "piano_a", settle: 0.1, window: 1.0)
        #expect(try #require(level("peak", in: both)) > -40, "after connect keys_b piano_a, piano_a plays too: \(both)")
    }

    @Test("a MIDI processor's output goes out of a JACK MIDI port, where jack_midi_dump sees the fifth beside every note")
    func processorOutputSeenByMIDIDump() throws {
        let rig = try LiveRig(session: """
            version: 1
            jack:
              client: trellis
              midi-inputs: [keys]
              midi-outputs: [to_synth]
            nodes:
              fifths: { lv2: http://lv2plug.in/plugins/eg-fifths }
            connections:
              - keys -> fifths
              - fifths -> to_synth
            """)
        defer { rig.stop() }
        let sequencer = try JACKTool(sequencerArguments, server: rig.serverName, folder: rig.folder)
        defer { sequencer.stop() }
        let dump = try JACKTool(["jack_midi_dump", "dump"], server: rig.serverName, folder: rig.folder)
        defer { dump.stop() }
        try JACKTool.waitForPort("seq:out", server: rig.serverName)
        try JACKTool.waitForPort("dump:input", server: rig.serverName)
        #expect(try JACKTool.run(["jack_connect", "trellis:to_synth", "dump:input"], server: rig.serverName) == 0)
        #expect(try JACKTool.run(["jack_connect", "seq:out", "trellis:keys"], server: rig.serverName) == 0)
        usleep(1_500_000)
        dump.stop()

        // Lines like "  128: 90 3c 40 note on  (channel  0): pitch  60, velocity  64".
        let events = dump.output.split(separator: "\n").compactMap { line -> (frame: Int, bytes: [Int])? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let frame = Int(parts[0].trimmingCharacters(in: .whitespaces)) else { return nil }
            let bytes = parts[1].split(separator: " ").prefix(3).compactMap { Int($0, radix: 16) }
            return bytes.count == 3 ? (frame, bytes) : nil
        }
        let noteOns = events.filter { $0.bytes[0] == 0x90 }
        #expect(noteOns.count >= 4, "a second of the loop gives at least two notes and their fifths: \(dump.output)")
        // Each note the sequencer plays comes out followed by its fifth, at the same frame.
        for pair in stride(from: 0, to: noteOns.count - 1, by: 2) {
            let (root, fifth) = (noteOns[pair], noteOns[pair + 1])
            #expect([60, 63].contains(root.bytes[1]), "\(root)")
            #expect(fifth.bytes[1] == root.bytes[1] + 7 && fifth.frame == root.frame, "\(root) then \(fifth)")
        }
        #expect(events.allSatisfy { [60, 63, 67, 70].contains($0.bytes[1]) }, "nothing but the notes and their fifths")
    }

    @Test("MIDI past what a JACK output port's buffer holds in one cycle is a warning naming the port and the count")
    func outputOverflowIsAWarning() throws {
        // Two players' 800 note-ons each on the first tick: one cycle's worth for the
        // port, past the 1,024 its list holds.
        var events: [(tick: Int, bytes: [UInt8])] = []
        for index in 0..<800 {
            let status = UInt8(0x90 | index % 16), pitch = UInt8(index / 16 % 128)
            events.append((tick: 0, bytes: [status, pitch, 100]))
        }
        events.append((tick: 480, bytes: [0x80, 0, 0]))
        let file = TestMIDIFile.header(format: 0, tracks: 1, division: 480) + TestMIDIFile.track(events)
        let rig = try LiveRig(session: """
            version: 1
            jack:
              client: trellis
              midi-outputs: [to_synth]
            nodes:
              one: { unit: midi-player, file: chord.mid }
              two: { unit: midi-player, file: chord.mid }
            connections:
              - one -> to_synth
              - two -> to_synth
            """) { folder in try Data(file).write(to: URL(fileURLWithPath: folder + "/chord.mid")) }
        defer { rig.stop() }
        let watcher = try rig.client(), client = try rig.client()
        #expect(try watcher.request("watch events=warning").hasPrefix("ok events=warning"))
        #expect(try client.request("transport play").hasPrefix("ok rolling=true"))
        var heard: [String] = []
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, let line = (try? watcher.readLine(timeout: max(0.001, deadline.timeIntervalSinceNow))) ?? nil {
            heard.append(line)
            if line.contains("JACK MIDI output") { break }
        }
        let warning = try #require(heard.first { $0.contains("JACK MIDI output") }, "\(heard)")
        #expect(warning.hasPrefix("event warning JACK MIDI output trellis:to_synth: "), "\(warning)")
        let count = warning.split(separator: " ").compactMap { Int($0) }.first ?? 0
        #expect(count == 1_600 - 1_024 && warning.hasSuffix("did not fit in one cycle's buffer and were lost"), "\(warning)")
    }
}
