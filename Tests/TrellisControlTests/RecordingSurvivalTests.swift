import Foundation
import Glibc
import Testing
import TrellisAudioFile

extension LiveControlTests {
    @Test("kill -9 during a 10 s recording leaves WAV and CAF files that read at least 9 s, and trellis recover finds the rest")
    func recordingSurvivesKill() throws {
        let rig = try LiveRig(session: """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
              trim: { unit: gain, channels: 1 }
              out: { unit: output, channels: 1 }
            connections: [tone1 -> trim, trim -> out]
            recorders:
              wavtake: { source: trim.0, file: take.wav }
              caftake: { source: trim.0, file: take.caf }
            """)
        defer { rig.stop() }
        Thread.sleep(forTimeInterval: 10.3)
        rig.kill(SIGKILL)
        for name in ["take.wav", "take.caf"] {
            let path = rig.folder + "/" + name
            let frames = try AudioFileReader(path: path).readAll()[0].count
            #expect(frames >= 9 * 48_000, "\(name): \(frames) frames readable after kill -9")
            let recovered = try trellis(["recover", path])
            #expect(recovered.status == 0, "\(recovered.stderr)")
            let after = try AudioFileReader(path: path).readAll()[0]
            #expect(after.count >= frames && after.count <= 11 * 48_000, "\(name): \(after.count) frames after recover")
            // The tone itself, not silence: a 0.5 sine's peak.
            #expect(abs((after.suffix(48_000).map { abs($0) }.max() ?? 0) - 0.5) < 0.01)
        }
    }
}

extension LiveControlTests {
    static let twoRecorders = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        nodes:
          tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
          out: { unit: output, channels: 1 }
        connections: [tone1 -> out]
        recorders:
          first: { source: tone1.0, file: first.wav }
          second: { source: tone1.0, file: second.wav }
        """

    @Test("a recorder that cannot start stops the run before any take is replaced")
    func recordersCheckedBeforeTruncating() throws {
        let folder = try temporaryFolder()
        let session = try write(Self.twoRecorders, to: "takes.yaml", in: folder)
        let take = try write("an earlier take that must survive", to: "first.wav", in: folder)
        try FileManager.default.createDirectory(atPath: folder + "/second.wav", withIntermediateDirectories: false)
        let result = try trellis(["run", session, "--start-server", "--server", "trellis-takes-\(getpid())", "--duration", "1", "--no-control"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("recorder second:") && result.stderr.contains("not a regular file"), "\(result.stderr)")
        #expect(try String(contentsOfFile: take, encoding: .utf8) == "an earlier take that must survive")
    }

    @Test("load ends the takes of recorders the new session lacks, complete, says so, and readies its own")
    func loadStopsRecorders() throws {
        let rig = try LiveRig(session: Self.twoRecorders)
        defer { rig.stop() }
        Thread.sleep(forTimeInterval: 0.5)
        let next = try write(Self.twoRecorders.replacingOccurrences(of: "first:", with: "third:").replacingOccurrences(of: "second:", with: "fourth:")
            .replacingOccurrences(of: "first.wav", with: "third.wav").replacingOccurrences(of: "second.wav", with: "fourth.wav"),
                             to: "next.yaml", in: rig.folder)
        let reply = try rig.ask("load \(next)")
        #expect(reply.contains("recorders first, second stopped with the old session; the files are complete"), "\(reply)")
        #expect(reply.contains("recorders third, fourth are ready and not recording: record start begins them"), "\(reply)")
        let frames = try AudioFileReader(path: rig.folder + "/first.wav").info.frameCount
        Thread.sleep(forTimeInterval: 0.3)
        let later = try AudioFileReader(path: rig.folder + "/first.wav").info.frameCount
        #expect(frames > 0 && later == frames, "the old take no longer grows")
        let started = try rig.ask("record start")
        #expect(started.hasPrefix("ok ") && started.contains("third recording ") && started.contains("fourth recording "), "\(started)")
        Thread.sleep(forTimeInterval: 1.2)
        let stopped = try rig.ask("record stop")
        #expect(stopped.hasPrefix("ok ") && stopped.contains("third idle ") && stopped.contains("fourth idle "), "\(stopped)")
        #expect(try AudioFileReader(path: rig.folder + "/third.wav").info.frameCount > 48_000)
    }

    @Test("a take goes on through load into one file when the new session has a recorder of that name")
    func recorderSurvivesLoad() throws {
        let rig = try LiveRig(session: Self.twoRecorders)
        defer { rig.stop() }
        Thread.sleep(forTimeInterval: 0.6)
        // The new session plays the tone at half the level into a recorder named first.
        let next = try write(Self.twoRecorders.replacingOccurrences(of: "amp: 0.5", with: "amp: 0.25")
            .replacingOccurrences(of: "\n  second: { source: tone1.0, file: second.wav }", with: ""), to: "next.yaml", in: rig.folder)
        let reply = try rig.ask("load \(next)")
        #expect(reply.contains("recorder first went on recording into the new session"), "\(reply)")
        #expect(reply.contains("recorder second stopped with the old session"), "\(reply)")
        Thread.sleep(forTimeInterval: 0.6)
        let stopped = try rig.ask("record stop first")
        #expect(stopped.hasPrefix("ok first idle ") && stopped.hasSuffix(rig.folder + "/first.wav"), "\(stopped)")
        let samples = try AudioFileReader(path: rig.folder + "/first.wav").readAll()[0]
        #expect(samples.count > 48_000, "\(samples.count) frames: both sessions' audio in one take")
        // Peaks per 480-frame window (ten periods of 1 kHz): 0.5, then 0.25 from one window on.
        let peaks = stride(from: 0, to: samples.count - 480, by: 480).map { start in samples[start..<start + 480].map { abs($0) }.max() ?? 0 }
        let loud = peaks.prefix { abs($0 - 0.5) < 0.01 }.count
        #expect(loud > 30, "\(loud) windows of the old session's tone")
        #expect(peaks.dropFirst(loud + 1).allSatisfy { abs($0 - 0.25) < 0.01 }, "after the load only the new session's tone, with no gap of silence")
        #expect(peaks.count - loud > 30, "\(peaks.count - loud) windows of the new session's tone")
    }

    @Test(
        "a full disk stops the take with an error at once and makes trellis run exit 1",
        .enabled(if: getuid() == 0, "needs root to mount a small tmpfs"))
    func fullDisk() throws {
        let folder = try temporaryFolder()
        let disk = folder + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=256k", "tmpfs", disk]
        try mount.run()
        mount.waitUntilExit()
        try #require(mount.terminationStatus == 0, "mount failed")
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = [disk]
            try? umount.run()
            umount.waitUntilExit()
        }
        let session = try write(Self.twoRecorders.replacingOccurrences(of: "first.wav", with: "disk/full.wav")
            .replacingOccurrences(of: "  second: { source: tone1.0, file: second.wav }\n", with: ""), to: "full.yaml", in: folder)
        let started = Date()
        let result = try trellis(["run", session, "--start-server", "--server", "trellis-full-\(getpid())", "--duration", "4", "--no-control"])
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("recorder") && result.stderr.contains("the take stops growing"), "\(result.stderr)")
    }
}

@Suite("Outputs never overwrite what is read")
struct OutputOverInputTests {
    /// A folder with half a second of tone in `in.wav` and a session that plays it.
    static func folderWithInput() throws -> (folder: String, bytes: Data) {
        let folder = try temporaryFolder()
        let made = try trellis(["chain", "--duration", "0.5", "tone", "!", folder + "/in.wav"])
        try #require(made.status == 0, "\(made.stderr)")
        return (folder, try Data(contentsOf: URL(fileURLWithPath: folder + "/in.wav")))
    }

    static let playing = """
        version: 1
        nodes:
          deck: { unit: player, file: in.wav }
          out: output
        connections: [deck -> out]
        """

    @Test("a recorder onto the file a player plays is refused at its file: line, whatever the spelling")
    func recorderOverPlayer() throws {
        let (folder, bytes) = try Self.folderWithInput()
        let session = try write(Self.playing + "\nrecorders:\n  take: { source: deck.0, file: ./sub/../in.wav }\n", to: "s.yaml", in: folder)
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: false)
        let result = try trellis(["validate", session])
        #expect(result.status == 1)
        #expect(result.stderr.contains("s.yaml:7:") && result.stderr.contains("is the file node \"deck\" plays"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/in.wav")) == bytes)
    }

    @Test("render -o onto a player's file or an --input file is refused and leaves it intact")
    func renderOverInput() throws {
        let (folder, bytes) = try Self.folderWithInput()
        let session = try write(Self.playing, to: "s.yaml", in: folder)
        let result = try trellis(["render", session, "-o", folder + "/in.wav"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is a file this render uses (node deck plays it)"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/in.wav")) == bytes)
    }

    @Test("a chain whose sink is its source file is refused")
    func chainOverSource() throws {
        let (folder, bytes) = try Self.folderWithInput()
        let result = try trellis(["chain", folder + "/in.wav", "!", "gain", "gain=-6", "!", folder + "/in.wav"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is the source file"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/in.wav")) == bytes)
    }
}

extension LiveControlTests {
    @Test("record meter answers each recorder's peak and average power over the window since the last reading")
    func recorderMetering() throws {
        let rig = try LiveRig(session: Self.twoRecorders)
        defer { rig.stop() }
        let client = try rig.client()
        _ = try client.request("record meter first")
        Thread.sleep(forTimeInterval: 0.2)
        let reply = try client.request("record meter first")
        #expect(reply.hasPrefix("ok first recording ") && reply.hasSuffix(rig.folder + "/first.wav"), "\(reply)")
        // A 0.5 sine: peak 20·log10(0.5), RMS 20·log10(0.5/√2).
        #expect(abs(try #require(level("peak", in: reply)) - decibels(0.5)) < 0.05, "\(reply)")
        #expect(abs(try #require(level("average", in: reply)) - decibels(0.5 / 2.squareRoot())) < 0.05, "\(reply)")
        #expect(try client.request("record meter nobody").hasPrefix("error UNKNOWN_NODE no recorder named nobody"))
    }

    @Test("watch meters=RECORDER streams the recorder's levels with its take's length; a finished take is a record event")
    func recorderWatch() throws {
        let rig = try LiveRig(session: Self.twoRecorders)
        defer { rig.stop() }
        let watcher = try rig.client()
        #expect(try watcher.request("watch events=meter,record meters=second rate=10").hasPrefix("ok "))
        var meters: [String] = []
        let deadline = Date().addingTimeInterval(1)
        while Date() < deadline, let line = try watcher.readLine(timeout: 1) { meters.append(line) }
        #expect(meters.count >= 5, "\(meters)")
        let seconds = meters.compactMap { field("seconds", in: $0).flatMap(Double.init) }
        #expect(seconds.count == meters.count && seconds == seconds.sorted() && seconds.last! > seconds.first!, "\(meters)")
        #expect(meters.allSatisfy { $0.hasPrefix("event meter second peak=") && $0.contains(" state=recording ") })
        #expect(abs(try #require(level("peak", in: meters.last!)) - decibels(0.5)) < 0.05, "\(meters.last!)")
        let stopped = try rig.ask("record stop second")
        #expect(stopped.hasPrefix("ok second idle "))
        var finished: String?
        let end = Date().addingTimeInterval(3)
        while Date() < end, finished == nil, let line = try watcher.readLine(timeout: 3) {
            if line.hasPrefix("event record ") { finished = line }
        }
        #expect(finished?.hasPrefix("event record second finished ") == true && finished?.hasSuffix(rig.folder + "/second.wav") == true, "\(finished ?? "none")")
    }
}
