import Foundation
import Testing
import TrellisControl
import TrellisCore
import TrellisTestSupport

extension LiveControlTests {
    /// eg-metro into the output, a recorder on it, the transport stopped at 120 BPM.
    static let metronomeSession = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        transport: { tempo: 120, meter: 4/4 }
        nodes:
          metro: { lv2: http://lv2plug.in/plugins/eg-metro }
          out: { unit: output, channels: 1 }
        connections: [metro -> out]
        recorders:
          take: { source: metro.0, file: take.wav }
        """

    /// Channel 0 of `trellis render SESSION` for `seconds`, as float32 beside it.
    static func render(_ session: String, seconds: Double) throws -> [Float] {
        let output = session.replacingOccurrences(of: ".yaml", with: ".wav")
        let render = Process()
        render.executableURL = trellisExecutable
        render.arguments = ["render", session, "-o", output, "--duration", "\(seconds)", "--sample-type", "float32"]
        render.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try render.run()
        render.waitUntilExit()
        return try firstChannel(ofFile: output)
    }

    @Test("transport play starts eg-metro on the transport's first frame, a click every 24,000 frames; tempo 90 spaces them 32,000 from the next beat")
    func metronomeLive() throws {
        let rig = try LiveRig(session: Self.metronomeSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("record start take overwrite").hasPrefix("ok"))
        usleep(300_000)
        #expect(try client.request("transport play").hasPrefix("ok rolling=true frame=0 bars=1|1|0"))
        usleep(1_700_000)
        #expect(try client.request("transport tempo 90").contains("tempo=90"))
        usleep(2_600_000)
        #expect(try client.request("record stop").hasPrefix("ok"))
        let onsets = clickOnsets(try firstChannel(ofFile: rig.folder + "/take.wav"))
        let spacing = zip(onsets.dropFirst(), onsets).map { $0 - $1 }
        let change = try #require(spacing.firstIndex { $0 != 24_000 }, "\(spacing)")
        #expect(change >= 2, "\(spacing)")
        #expect(spacing[change] > 24_000 && spacing[change] <= 32_000, "the beat the tempo changed in: \(spacing)")
        let after = spacing[(change + 1)...]
        #expect(after.count >= 2 && after.allSatisfy { $0 == 32_000 }, "\(spacing)")
        // Nothing sounded before the transport rolled, and it rolled from a cycle's first
        // frame (changes apply there; the take began on one too): the first click is there.
        let first = try #require(onsets.first)
        #expect(first > 10_000 && first % 256 == 0, "\(onsets)")
    }

    @Test("a locate past the transport's range is refused, and locate, tempo and a locate by bars leave the session running")
    func farLocateIsRefused() throws {
        let rig = try LiveRig(session: Self.metronomeSession)
        defer { rig.stop() }
        let client = try rig.client()
        let refused = try client.request("transport locate 9223372036854775807")
        #expect(refused.hasPrefix("error") && refused.contains("within ten million seconds"), "\(refused)")
        #expect(try client.request("transport locate \(TimeContext.maximumFrame)").hasPrefix("ok"))
        #expect(try client.request("transport tempo 90").hasPrefix("ok"))
        #expect(try client.request("transport locate 2|1|0").hasPrefix("ok"))
        #expect(try client.request("status").hasPrefix("ok"))
    }

    @Test("transport shows and moves the clock in frames, seconds, bars|beats|ticks and SMPTE; status says where it is")
    func transportCommands() throws {
        let rig = try LiveRig(session: Self.metronomeSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("transport") == "ok rolling=false frame=0 bars=1|1|0 seconds=0.000 smpte=00:00:00:00 tempo=120 meter=4/4")
        #expect(try client.request("transport locate 2|1|0") == "ok rolling=false frame=96000 bars=2|1|0 seconds=2.000 smpte=00:00:02:00 tempo=120 meter=4/4")
        #expect(try client.request("transport locate 00:00:01:12").hasPrefix("ok rolling=false frame=71040 "))
        #expect(try client.request("transport locate 1.5s").hasPrefix("ok rolling=false frame=72000 bars=1|4|0"))
        #expect(try client.request("transport meter 3/4").contains("bars=2|1|0 seconds=1.500"))
        #expect(try client.request("transport tempo 90").contains("tempo=90"))
        let status = try client.request("status")
        #expect(status.contains("transport=stopped") && status.contains("bars=2|1|0"), "\(status)")
        #expect(try client.request("transport locate 1|5|0").hasPrefix("error BAD_VALUE"))
        #expect(try client.request("transport tempo 0").hasPrefix("error OUT_OF_RANGE"))
        #expect(try client.request("transport meter 4/5").hasPrefix("error BAD_VALUE"))
        #expect(try client.request("transport rewind").hasPrefix("error SYNTAX"))
    }
}

/// `jack_transport`, jackd2's own transport tool, typed at through its standard input.
final class JACKTransportTool: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()

    init(server: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jack_transport")
        process.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server]) { $1 }
        process.standardInput = input
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
    }

    func type(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        usleep(100_000)
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// What `jack_showtime` prints for the server's transport, one line.
func showtime(server: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/jack_showtime")
    process.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server]) { $1 }
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try process.run()
    var text = ""
    while !text.contains("\n") {
        let data = out.fileHandleForReading.availableData
        if data.isEmpty { break }
        text += String(decoding: data, as: UTF8.self)
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    return String(text.split(separator: "\n").first ?? "")
}

extension LiveControlTests {
    static func transportSession(_ source: String, tempo: Int = 120, meter: String = "4/4") -> String {
        metronomeSession.replacingOccurrences(of: "transport: { tempo: 120, meter: 4/4 }", with: "transport: { tempo: \(tempo), meter: \(meter), source: \(source) }")
    }

    /// Asks `transport` until its reply holds `text`, for up to `seconds`.
    static func transport(_ client: ControlClient, until text: String, within seconds: Double = 1) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var reply = ""
        repeat {
            reply = try client.request("transport")
            if reply.contains(text) { break }
            usleep(5_000)
        } while Date() < deadline
        return reply
    }

    @Test("following JACK transport: jack_transport's play, stop and locate move the session's clock, and ctl transport moves JACK's")
    func followJACKTransport() throws {
        let rig = try LiveRig(session: Self.transportSession("jack"))
        defer { rig.stop() }
        let client = try rig.client()
        let tool = try JACKTransportTool(server: rig.serverName)
        defer { tool.stop() }
        tool.type("locate 96000")
        #expect(try Self.transport(client, until: "frame=96000").contains("rolling=false frame=96000 bars=2|1|0"))
        tool.type("play")
        let rolling = try Self.transport(client, until: "rolling=true")
        #expect(rolling.contains("rolling=true"), "\(rolling)")
        tool.type("stop")
        #expect(try Self.transport(client, until: "rolling=false").contains("rolling=false"))
        // The other way: ctl moves JACK's transport, which jack_showtime sees.
        #expect(try client.request("transport locate 3|1|0").hasPrefix("ok"))
        usleep(100_000)
        #expect(try showtime(server: rig.serverName).contains("frame = 192000"))
        #expect(try client.request("transport play").hasPrefix("ok"))
        usleep(100_000)
        #expect(try showtime(server: rig.serverName).contains("Rolling"))
    }

    @Test("following JACK transport takes the timebase master's tempo and meter")
    func followJACKTempo() throws {
        let rig = try LiveRig(session: Self.transportSession("jack"))
        defer { rig.stop() }
        let client = try rig.client()
        let tool = try JACKTransportTool(server: rig.serverName)
        defer { tool.stop() }
        tool.type("master")
        tool.type("tempo 90")
        tool.type("play")
        let reply = try Self.transport(client, until: "tempo=90")
        #expect(reply.contains("rolling=true") && reply.contains("tempo=90"), "\(reply)")
    }

    @Test("as JACK's timebase master, the session's tempo and meter are what other clients read")
    func timebaseMaster() throws {
        let rig = try LiveRig(session: Self.transportSession("jack-master", tempo: 140, meter: "3/4"))
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("transport locate 96000").hasPrefix("ok"))
        usleep(200_000)
        // 96,000 frames at 140 BPM are 4 2/3 beats: in 3/4, bar 2, beat 2, tick 1280.
        let shown = try showtime(server: rig.serverName)
        #expect(shown.contains("BBT:   2|2|1280"), "\(shown)")
        // At 70 BPM from there, 96,000 frames more are 2 1/3 beats more: 7 beats, 3|2|0
        // (at 140 it would have been 4|1|640).
        #expect(try client.request("transport tempo 70").hasPrefix("ok"))
        #expect(try client.request("transport locate 192000").hasPrefix("ok"))
        usleep(200_000)
        let slower = try showtime(server: rig.serverName)
        #expect(slower.contains("BBT:   3|2|0"), "\(slower)")
    }
}

extension LiveControlTests {
    @Test("a MIDI file played live through mda EPiano starts every note on the offline render's frame and sounds as it does, from where the transport started")
    func midiFileLiveEqualsOffline() throws {
        let session = """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              song: { unit: midi-player, file: song.mid }
              piano: { lv2: http://drobilla.net/plugins/mda/EPiano }
              out: { unit: output, channels: 2 }
            connections: [song -> piano -> out]
            recorders:
              take: { source: piano.0, file: take.wav }
            """
        let rig = try LiveRig(session: session) { folder in
            try Data(TestMIDIFile.twoTrackSong).write(to: URL(fileURLWithPath: folder + "/song.mid"))
        }
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("record start take overwrite").hasPrefix("ok"))
        usleep(200_000)
        #expect(try client.request("transport play").hasPrefix("ok rolling=true"))
        usleep(3_700_000)
        #expect(try client.request("record stop").hasPrefix("ok"))
        let live = try firstChannel(ofFile: rig.folder + "/take.wav")
        let start = try #require(live.firstIndex { $0 != 0 })
        #expect(start % 256 == 0, "the song starts on the cycle the transport started in")
        #expect(soundOnsets(Array(live[start...])) == TestMIDIFile.twoTrackOnsets)

        try session.replacingOccurrences(of: "recorders:\n  take: { source: piano.0, file: take.wav }", with: "")
            .write(toFile: rig.folder + "/offline.yaml", atomically: true, encoding: .utf8)
        let offline = try Self.render(rig.folder + "/offline.yaml", seconds: 3.5)
        let count = min(offline.count, live.count - start)
        #expect(count >= 160_000)
        // EPiano's own modulation runs while the transport waits, so its state at the
        // first note is not quite the offline render's: 7e-6 at most here, far below 1e-4.
        let worst = (0..<count).map { abs(live[start + $0] - offline[$0]) }.max() ?? 0
        #expect(worst < 1e-4, "live and offline differ by up to \(worst)")
    }
}

extension LiveControlTests {
    /// A constant 0.5 through a gain at -20 dB whose lane rises to 0 dB over a second
    /// once the transport rolls; a recorder takes the gain's output.
    static let automationSession = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        nodes:
          dc: { unit: player, file: dc.wav, loops: -1 }
          trim:
            unit: gain
            channels: 1
            parameters: { gain: -20 }
            automation:
              gain: [0s -20, 1s 0]
          out: { unit: output, channels: 1 }
        connections: [dc -> trim -> out]
        recorders:
          take: { source: trim.0, file: take.wav, sample-type: float32 }
        """

    @Test("an automation lane played live gives the offline render's samples, from the frame the transport started")
    func automationLiveEqualsOffline() throws {
        // The gain's output is never 0: a zero in the take is a block the player's disk
        // thread, starved on a busy machine, could not fill. Such a take is taken again.
        var attempt = 0
        var (rig, live) = try automationTake()
        while live.contains(0) && attempt < 2 {
            rig.stop()
            attempt += 1
            (rig, live) = try automationTake()
        }
        defer { rig.stop() }
        let waiting = live.first ?? 0
        let start = try #require(live.firstIndex { $0 != waiting })
        #expect(start % 256 == 0 && start > 0, "the lane starts on the transport's first frame: \(start)")

        try Self.automationSession.replacingOccurrences(of: "recorders:\n  take: { source: trim.0, file: take.wav, sample-type: float32 }", with: "")
            .write(toFile: rig.folder + "/offline.yaml", atomically: true, encoding: .utf8)
        let offline = try Self.render(rig.folder + "/offline.yaml", seconds: 1.1)
        let count = min(offline.count, live.count - start)
        #expect(count >= 48_000)
        let differing = (0..<count).first { live[start + $0] != offline[$0] }
        #expect(differing == nil, "live and offline differ from frame \(differing ?? -1)")
    }

    /// A live session of `automationSession` and its take: 0.3 s waiting, 1.5 s rolling.
    private func automationTake() throws -> (LiveRig, [Float]) {
        let rig = try LiveRig(session: Self.automationSession) { folder in
            try FloatWAV.write(Array(repeating: 0.5, count: 48_000), sampleRate: 48_000, to: folder + "/dc.wav")
        }
        do {
            let client = try rig.client()
            #expect(try client.request("record start take overwrite").hasPrefix("ok"))
            usleep(300_000)
            #expect(try client.request("transport play").hasPrefix("ok rolling=true"))
            usleep(1_500_000)
            #expect(try client.request("record stop").hasPrefix("ok"))
            return (rig, try firstChannel(ofFile: rig.folder + "/take.wav"))
        } catch {
            rig.stop()
            throw error
        }
    }

    @Test("ctl automate sets and clears a lane, undo takes it back, and save writes it")
    func automateFromControl() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("automate trim gain 0s 0 2|1|0 -12 step") == "ok trim gain 2 points step")
        let saved = rig.folder + "/saved.yaml"
        #expect(try client.request("save \(saved)").hasPrefix("ok"))
        let text = try String(contentsOfFile: saved, encoding: .utf8)
        #expect(text.contains("automation:") && text.contains(#"gain: { points: ["0.0s 0", "2.0s -12"], step: true }"#), "\(text)")
        // What save wrote loads again.
        let reloaded = Process()
        reloaded.executableURL = trellisExecutable
        reloaded.arguments = ["validate", saved]
        reloaded.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try reloaded.run()
        reloaded.waitUntilExit()
        #expect(reloaded.terminationStatus == 0)
        #expect(try client.request("undo") == "ok undid automate trim gain (2 points)")
        #expect(try client.request("save \(saved)").hasPrefix("ok"))
        #expect(!(try String(contentsOfFile: saved, encoding: .utf8)).contains("automation:"))
        #expect(try client.request("automate trim gain 0s loud").hasPrefix("error BAD_VALUE"))
        #expect(try client.request("automate trim gian 0s 0").hasPrefix("error UNKNOWN_PARAMETER"))
        #expect(try client.request("automate trim gain 0s 0 1s -6") == "ok trim gain 2 points")
        #expect(try client.request("automate clear trim") == "ok")
    }
}

extension LiveControlTests {
    @Test("trellis run's JSON status lines say where the transport is")
    func statusLineShowsTransport() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = "trellis-status-\(UUID().uuidString.prefix(8))"
        let jackd = try LiveRig.startJACK(server, log: folder + "/jackd.log")
        defer {
            jackd.terminate()
            jackd.waitUntilExit()
        }
        let session = try write(Self.metronomeSession.replacingOccurrences(of: "transport: { tempo: 120, meter: 4/4 }", with: "transport: { tempo: 90, start: 2|1|0 }"),
                                to: "session.yaml", in: folder)
        let run = Process()
        run.executableURL = trellisExecutable
        run.arguments = ["run", session, "--server", server, "--json", "--duration", "1.5", "--control-socket", folder + "/c.sock"]
        let out = Pipe()
        run.standardOutput = out
        run.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try run.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.waitUntilExit()
        let status = try #require(text.split(separator: "\n").last { $0.contains(#""type":"status""#) }, "\(text)")
        #expect(status.contains(#""transport":"stopped","bars":"2|1|0","tempo":90"#), "\(status)")
    }
}
