import Foundation
import Testing
import TrellisTestSupport

/// The loudness lines of `render` and `chain`, and `--normalize`, checked by
/// `trellis analyze` and by ffmpeg's ebur128 filter on the files written.
@Suite("Loudness in render and chain summaries, and --normalize")
struct NormalizeCLITests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sessions/demo.yaml").path

    /// `trellis analyze --json`'s object for `path`.
    static func analyze(_ path: String) throws -> [String: Any] {
        let result = try trellis(["analyze", "--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return try #require(objects.first)
    }

    /// A stereo 48 kHz WAV made by sox from interleaved float frames.
    static func wav(_ interleaved: [Float], name: String) throws -> String {
        let raw = temporaryPath(name + ".f32"), path = temporaryPath(name)
        try interleaved.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: URL(fileURLWithPath: raw))
        #expect(try runTool("/usr/bin/sox", ["-t", "f32", "-r", "48000", "-c", "2", raw, "-b", "16", path]) == 0)
        return path
    }

    @Test("render's summary ends with the output's loudness as analyze reads the file, and --json carries the same figures")
    func renderSummary() throws {
        let output = temporaryPath("demo.wav")
        let result = try trellis(["render", Self.demo, "-o", output, "--duration", "8", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let analysis = try Self.analyze(output)
        let integrated = try #require(analysis["integrated"] as? Double), truePeak = try #require(analysis["truePeak"] as? Double)
        #expect(result.stderr.contains(String(format: "loudness: %.1f LUFS integrated", integrated)), "\(result.stderr)")
        #expect(result.stderr.contains(String(format: "%.1f dBTP true peak", truePeak)), "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let loudness = try #require(summary["loudness"] as? [String: Any])
        #expect(summary["frames"] as? Int == 8 * 48_000)
        #expect(summary["normalized"] is NSNull)
        #expect(abs(try #require(loudness["integrated"] as? Double) - integrated) < 0.01)
        #expect(abs(try #require(loudness["truePeak"] as? Double) - truePeak) < 0.01)
    }

    @Test("--normalize -14LUFS --true-peak -1 on the demo: -14.0 within 0.1 LU and at most -1 dBTP, by Trellis and by ffmpeg")
    func normalizesTheDemo() throws {
        let output = temporaryPath("demo.flac")
        let result = try trellis(["render", Self.demo, "-o", output, "--duration", "12", "--normalize", "-14LUFS", "--true-peak", "-1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("normalized to -14.0 LUFS"), "\(result.stderr)")
        let analysis = try Self.analyze(output)
        #expect(abs(try #require(analysis["integrated"] as? Double) + 14) <= 0.1)
        #expect(try #require(analysis["truePeak"] as? Double) <= -1.0)
        let ffmpeg = try AnalyzeCLITests.ffmpegLoudness(output)
        #expect(abs(ffmpeg.integrated + 14) <= 0.1, "ffmpeg reads \(ffmpeg.integrated) LUFS")
        #expect(ffmpeg.truePeak <= -1.0, "ffmpeg reads \(ffmpeg.truePeak) dBTP")
        // Nothing is left beside the output.
        let folder = (output as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["demo.flac"])
    }

    @Test("a clipping-loud input through chain --normalize lands on -14 LUFS within 0.1, under -1 dBTP")
    func normalizesAClippingInput() throws {
        let input = temporaryPath("loud.wav"), output = temporaryPath("loud-normalized.wav")
        // Pink noise driven 12 dB into clipping: sox clips it, as a too-hot master would be.
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", input, "synth", "10", "pinknoise", "gain", "12"]) == 0)
        let before = try Self.analyze(input)
        #expect(try #require(before["integrated"] as? Double) > -8)
        let result = try trellis(["chain", "--normalize", "-14", input, "!", "gain", "gain=0", "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        let after = try Self.analyze(output)
        #expect(abs(try #require(after["integrated"] as? Double) + 14) <= 0.1)
        #expect(try #require(after["truePeak"] as? Double) <= -1.0)
    }

    @Test("quiet noise with full-scale clicks needs the limiter: the target and the ceiling are met, and the summary says it acted")
    func limiterKeepsTheCeiling() throws {
        var frames = [Float](repeating: 0, count: 10 * 48_000 * 2)
        var state: UInt32 = 1
        for i in frames.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            frames[i] = (Float(state >> 8) / Float(1 << 24) - 0.5) * 0.04
        }
        for click in stride(from: 0, to: frames.count - 4, by: 2 * 4_800) { frames[click] = 0.99; frames[click + 2] = -0.99 }
        let input = try Self.wav(frames, name: "clicks.wav"), output = temporaryPath("clicks-normalized.wav")
        let result = try trellis(["chain", "--normalize", "-16LUFS", "--true-peak", "-2", input, "!", "gain", "gain=0", "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("true-peak limiter down to"), "\(result.stderr)")
        let after = try Self.analyze(output)
        #expect(abs(try #require(after["integrated"] as? Double) + 16) <= 0.1)
        #expect(try #require(after["truePeak"] as? Double) <= -2.0)
        // The clicks are still there, under the ceiling: the limiter reduced, it did not remove.
        #expect(try #require(after["truePeak"] as? Double) > -3.0)
    }

    @Test("bad requests are errors that say what is wrong, and write nothing",
          arguments: [
            (["--normalize", "loud"], "--normalize loud"),
            (["--normalize", "-80"], "from -70 to 0 LUFS"),
            (["--true-peak", "-1"], "applies with --normalize"),
            (["--normalize", "-14", "--true-peak", "+3"], "--true-peak +3"),
          ])
    func badRequests(_ options: [String], _ message: String) throws {
        let output = temporaryPath("never.wav")
        let result = try trellis(["render", Self.demo, "-o", output, "--duration", "1"] + options)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("--no-loudness leaves the loudness out of the summary and the JSON, and cannot go with --normalize")
    func withoutLoudness() throws {
        let output = temporaryPath("plain.wav")
        let result = try trellis(["chain", "--no-loudness", "--json", "--duration", "1", "tone", "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("loudness:"), "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["loudness"] is NSNull && summary["frames"] as? Int == 48_000)
        let both = try trellis(["chain", "--no-loudness", "--normalize", "-14", "--duration", "1", "tone", "!", temporaryPath("never.wav")])
        #expect(both.status != 0 && both.stderr.contains("--no-loudness and --normalize disagree"), "\(both.stderr)")
    }

    @Test("normalizing silence is an error naming it, and leaves no file behind")
    func silenceCannotBeNormalized() throws {
        let output = temporaryPath("silence.wav")
        let result = try trellis(["chain", "--normalize", "-14", "--duration", "2", "tone", "amp=0", "!", output])
        #expect(result.status != 0)
        #expect(result.stderr.contains("silent"), "\(result.stderr)")
        let folder = (output as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
