import Foundation
import Testing
import TrellisAV

@Suite("The examples, run as their users run them", .serialized)
struct ExamplesTests {
    @Test("OfflineRender: a file through EQ and reverb offline is `trellis render` of the same session, bit for bit")
    func offlineRender() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.wav"), ours = folder.appendingPathComponent("ours.wav")
        let theirs = folder.appendingPathComponent("theirs.wav"), session = folder.appendingPathComponent("same.yaml")
        let made = try run("/usr/bin/sox", ["-n", "-r", "48000", "-b", "32", "-e", "floating-point", "-c", "2", source.path,
                                            "synth", "2", "pinknoise", "sine", "330", "gain", "-9"])
        #expect(made.succeeded, "\(made.output)")
        let rendered = try run(example("OfflineRender"), [source.path, ours.path])
        #expect(rendered.succeeded, "\(rendered.output)")

        let trellis = try #require(ProcessInfo.processInfo.environment["TRELLIS_BINARY"], "scripts/test-examples names the trellis command in TRELLIS_BINARY")
        let q = Float(2.0.squareRoot())
        let bypassed = (2..<16).map { "band\($0).bypass: 1" }.joined(separator: ", ")
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: 4096 }
            nodes:
              player: { unit: player, file: \(source.path) }
              eq: { unit: eq, parameters: { band0.type: 1, band0.freq: 200, band0.gain: 4, band0.q: 0.7071, band1.type: 0, band1.freq: 2000, band1.q: \(q), band1.gain: -3, \(bypassed) } }
              reverb: { unit: reverb, preset: Medium Hall, parameters: { wetDryMix: 40 } }
              mix: { unit: mixer }
              out: { unit: output, channels: 2 }
            connections: [player -> eq -> reverb -> mix -> out]
            """.write(to: session, atomically: true, encoding: .utf8)
        let reference = try run(trellis, ["render", session.path, "-o", theirs.path, "--duration", "2"])
        #expect(reference.succeeded, "\(reference.output)")
        let a = try samples(of: ours), b = try samples(of: theirs)
        #expect(a.count == 2 && a[0].count == 96_000)
        #expect(a.count == b.count && difference(a[0][...], from: b[0], at: 0) == nil && difference(a[1][...], from: b[1], at: 0) == nil)
        #expect(a[0].contains { $0 != 0 })
    }

    @Test("SynchronizedLoops: players started at one device time start on one frame; rate 1.5 keeps 440 Hz and ends 1/1.5 as late")
    func synchronizedLoops() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clicks = folder.appendingPathComponent("clicks.wav"), tone = folder.appendingPathComponent("tone.wav")
        try write([(0..<48_000).map { $0 % 12_000 == 0 ? 0.9 : 0 }], to: clicks)
        try write([(0..<144_000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }], to: tone)
        let jack = try PrivateJACK()
        defer { jack.stop() }

        func recordProgram(_ arguments: [String], seconds: Int) throws -> [[Float]] {
            let capture = try Capture(on: jack)
            defer { capture.stop() }
            let capturing = try jack.client(withPort: ":in_1")
            let program = try Started(example("SynchronizedLoops"), arguments, environment: jack.environment, deadline: 60)
            defer { program.kill() }
            let client = try jack.client(withPort: ":out_1", except: [capturing])
            for channel in 1...2 { try jack.connect("\(client):out_\(channel)", "\(capturing):in_\(channel)") }
            let heard = capture.wait(for: 48_000 * seconds)
            let ended = program.wait()
            #expect(ended.succeeded, "\(ended.output)")
            try jack.waitUntilGone(client)
            return heard
        }

        let both = try recordProgram(["--seconds", "3", "--lead", "1", "\(clicks.path):-1", "\(clicks.path):1"], seconds: 3)
        let left = try #require(both[0].firstIndex { abs($0) > 0.1 }), right = try #require(both[1].firstIndex { abs($0) > 0.1 })
        #expect(left == right)

        let fast = try recordProgram(["--rate", "1.5", "--loops", "0", "--seconds", "6", "--lead", "1", tone.path], seconds: 4)
        let first = try #require(fast[0].firstIndex { abs($0) > 0.05 }), last = try #require(fast[0].lastIndex { abs($0) > 0.05 })
        #expect(abs(Double(last - first) - 96_000) < 960, "played \(last - first) frames, 1/1.5 of 144,000 is 96,000")
        #expect(abs(peakHertz(fast[0][(first + 24_000)..<(first + 72_000)], low: 420, high: 460) - 440) <= 0.5)
    }

    @Test("MeteredRecorder: records exactly the seconds asked of what another client feeds, sample for sample, and meters it")
    func meteredRecorder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jack = try PrivateJACK()
        defer { jack.stop() }
        let feed = feedSignal(seconds: 20)
        let engine = try feeder(feed, on: jack)
        defer { engine.stop() }
        let feederClient = try jack.client(withPort: ":out_1")
        let output = folder.appendingPathComponent("take.wav")
        let program = try Started(example("MeteredRecorder"), [output.path, "2"], environment: jack.environment, deadline: 60)
        defer { program.kill() }
        let recording = try jack.client(withPort: ":in_1", except: [feederClient])
        for channel in 1...2 { try jack.connect("\(feederClient):out_\(channel)", "\(recording):in_\(channel)") }
        let ended = program.wait()
        #expect(ended.succeeded, "\(ended.output)")
        let take = try samples(of: output)
        #expect(take.count == 2 && take[0].count == 96_000)
        // Whatever came before the connection is silence; from the first sound on, the feed itself.
        let sound = try #require(take[0].firstIndex { $0 != 0 })
        // Each channel is silence until its connection was made (one jack_connect after
        // the other), then the feed itself.
        let soundRight = try #require(take[1].firstIndex { $0 != 0 })
        let start = try #require(offset(of: Array(take[0][sound...]), in: feed[0]))
        #expect(difference(take[0][sound...], from: feed[0], at: start) == nil)
        #expect(difference(take[1][soundRight...], from: feed[1], at: start + soundRight - sound) == nil)
        let peaks = ended.output.split(separator: "\n").compactMap { line -> Double? in
            guard let range = line.range(of: "peak ") else { return nil }
            return Double(line[range.upperBound...].split(separator: " ").first ?? "")
        }
        let peak = try #require(peaks.last)
        #expect(abs(peak - 20 * log10(0.51)) < 0.5, "the last peak meter read \(peak) dB")
    }

    @Test("TapToFile: the input through a mixer and a tap into a CAF file is what was fed, sample for sample; a pause leaves the paused stretch out")
    func tapToFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jack = try PrivateJACK()
        defer { jack.stop() }
        let feed = feedSignal(seconds: 30)
        let engine = try feeder(feed, on: jack)
        defer { engine.stop() }
        let feederClient = try jack.client(withPort: ":out_1")

        /// Runs the program; `fed`, with the feeder connected to its input.
        func record(_ arguments: [String], fed: Bool) throws -> [[Float]] {
            let output = folder.appendingPathComponent("take-\(UUID().uuidString).caf")
            let program = try Started(example("TapToFile"), [output.path] + arguments, environment: jack.environment, deadline: 60)
            defer { program.kill() }
            let recording = try jack.client(withPort: ":in_1", except: [feederClient])
            if fed { for channel in 1...2 { try jack.connect("\(feederClient):out_\(channel)", "\(recording):in_\(channel)") } }
            let ended = program.wait()
            #expect(ended.succeeded, "\(ended.output)")
            try jack.waitUntilGone(recording)
            return try samples(of: output)
        }

        let take = try record(["3"], fed: true)
        let sound = try #require(take[0].firstIndex { $0 != 0 })
        #expect(take[0].count - sound > 96_000, "recorded \(take[0].count - sound) frames of sound in 3 s")
        // Each channel is silence until its connection was made (one jack_connect after
        // the other), then the feed itself.
        let soundRight = try #require(take[1].firstIndex { $0 != 0 })
        let start = try #require(offset(of: Array(take[0][sound...]), in: feed[0]))
        #expect(difference(take[0][sound...], from: feed[0], at: start) == nil)
        #expect(difference(take[1][soundRight...], from: feed[1], at: start + soundRight - sound) == nil)

        // A pause lets the JACK client go (as Apple's engine lets the device go); the one
        // that resumes is connected to the physical ports again, so this run is not fed.
        let paused = try record(["4", "--pause-at", "1.5", "--resume-at", "2.5"], fed: false)
        #expect(abs(Double(paused[0].count) - 144_000) < 24_000, "4 s with 1 s paused recorded \(paused[0].count) frames")
    }
}
