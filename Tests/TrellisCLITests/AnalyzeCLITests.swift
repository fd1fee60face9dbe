import Foundation
import Testing
import TrellisTestSupport

@Suite("trellis analyze")
struct AnalyzeCLITests {
    /// The summary ffmpeg's ebur128 filter prints at the end: integrated loudness,
    /// loudness range and true peak.
    static func ffmpegLoudness(_ path: String) throws -> (integrated: Double, range: Double, truePeak: Double) {
        let process = Process()
        // A deadline that ends in SIGKILL: ffmpeg cannot hold the suite.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["-k", "5", "120", "/usr/bin/ffmpeg", "-nostats", "-hide_banner", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let summary = text.components(separatedBy: "Summary:").last ?? ""
        func figure(_ label: String) -> Double? {
            guard let line = summary.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return nil }
            return line.split(separator: " ").compactMap { Double($0) }.first
        }
        guard let integrated = figure("I:"), let range = figure("LRA:"), let peak = figure("Peak:") else {
            throw TestFailure("ffmpeg printed no loudness summary: \(summary)")
        }
        return (integrated, range, peak)
    }

    @Test("on the demo's render, integrated loudness, range and true peak agree with ffmpeg's ebur128 filter")
    func agreesWithFFmpeg() throws {
        let session = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sessions/demo.yaml").path
        let render = temporaryPath("demo.wav")
        let rendered = try trellis(["render", session, "-o", render, "--duration", "16"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let result = try trellis(["analyze", "--json", render])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let ours = try #require(objects.first)
        let theirs = try Self.ffmpegLoudness(render)
        let integrated = try #require(ours["integrated"] as? Double), range = try #require(ours["range"] as? Double)
        let truePeak = try #require(ours["truePeak"] as? Double)
        #expect(abs(integrated - theirs.integrated) <= 0.1, "ours \(integrated), ffmpeg \(theirs.integrated)")
        #expect(abs(range - theirs.range) <= 0.1, "ours \(range), ffmpeg \(theirs.range)")
        #expect(abs(truePeak - theirs.truePeak) <= 0.2, "ours \(truePeak), ffmpeg \(theirs.truePeak)")
    }

    @Test("the table names the file and its figures; a missing file is an error naming it, exit 1, after the others")
    func tableAndErrors() throws {
        let tone = temporaryPath("tone.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", tone, "synth", "20", "sine", "1000", "vol", "-23", "dB"]) == 0)
        let missing = temporaryPath("missing.wav")
        let result = try trellis(["analyze", missing, tone])
        #expect(result.status == 1)
        #expect(result.stderr.contains(missing), "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\(tone): "), "\(result.stdout)")
        #expect(result.stdout.contains("integrated -23.0 LUFS"), "\(result.stdout)")
    }
}
