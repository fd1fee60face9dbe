import Foundation
import Testing

@Suite("Plugin latency in info, chain and render")
struct LatencyCLITests {
    static let dpl = "http://gareus.org/oss/lv2/dpl#stereo"

    /// 0.5 s of stereo white noise at -20 dBFS, far below dpl's threshold.
    static func noise() throws -> String {
        let path = temporaryPath("noise.wav")
        let made = try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "floating-point", path, "synth", "0.5", "whitenoise", "vol", "0.1"])
        #expect(made == 0)
        return path
    }

    @Test("info reports the latency dpl reports once it runs, at the rate asked for")
    func infoReportsLatency() throws {
        for (rate, frames) in [("48000", 64), ("96000", 128)] {
            let result = try trellis(["info", "lv2:" + Self.dpl, "--sample-rate", rate, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let info = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(info["latencyFrames"] as? Int == frames)
        }
        let text = try trellis(["info", "lv2:" + Self.dpl])
        #expect(text.stdout.contains("latency: 64 frames at 48000 Hz"))
    }

    @Test("info --json gives no latency for a plugin that cannot be initialized, as its text says unknown")
    func unknownLatency() throws {
        var fixtures = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { fixtures.deleteLastPathComponent() }
        let environment = ["LV2_PATH": fixtures.appendingPathComponent("Plugins/fixtures").path, "XDG_CACHE_HOME": temporaryPath("unknown-latency")]
        let json = try trellis(["info", "lv2:urn:trellis:fixtures:broken-library", "--json"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let info = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(info["initializationError"] is String && info["latencyFrames"] == nil, "\(json.stdout)")
        let text = try trellis(["info", "lv2:urn:trellis:fixtures:broken-library"], environment: environment)
        #expect(text.stdout.contains("latency: unknown"), "\(text.stdout)")
    }

    @Test("chain shows the plugin's latency in the program and delays the file by it")
    func chainDelaysByLatency() throws {
        let input = try Self.noise(), output = temporaryPath("out.wav")
        let result = try trellis(["chain", "--show-program", input, "!", "lv2:" + Self.dpl, "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("latency 64 frames"))
        let dry = try floats(input), wet = try floats(output)
        let worst = (64..<24_000).map { (frame: Int) -> Float in abs(wet[2 * frame] - dry[2 * (frame - 64)]) }.max() ?? 1
        #expect(worst < 1e-6, "the output is the input 64 frames late")
    }

    @Test("render of dpl beside a dry path sums them aligned: twice the input, 64 frames late")
    func renderAligned() throws {
        let input = try Self.noise(), output = temporaryPath("mix.wav")
        let session = temporaryPath("session.yaml")
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              src: { unit: player, file: \(input) }
              split: splitter
              dpl: { lv2: "\(Self.dpl)" }
              mix: { unit: mixer, inputs: 2 }
              out: output
            connections:
              - src -> split
              - split.0 -> dpl
              - dpl -> mix.0
              - split.1 -> mix.1
              - mix -> out
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let result = try trellis(["render", session, "-o", output, "--duration", "0.5"])
        #expect(result.status == 0, "\(result.stderr)")
        let dry = try floats(input), mix = try floats(output)
        // A comb filter (paths 64 frames apart) would differ by about the signal itself.
        let worst = (64..<24_000).map { (frame: Int) -> Float in abs(mix[2 * frame] - 2 * dry[2 * (frame - 64)]) }.max() ?? 1
        #expect(worst < 1e-5)
    }
}
