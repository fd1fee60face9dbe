import Foundation
import Testing
import TrellisTestSupport

/// eg-metro clicks on every beat it is told of through `time:Position`.
@Suite("The transport clock in a render")
struct TransportRenderTests {
    static func metronome(transport: String = "transport: { tempo: 120 }") -> String {
        """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        \(transport)
        nodes:
          metro: { lv2: http://lv2plug.in/plugins/eg-metro }
          out: { unit: output, channels: 1 }
        connections: [metro -> out]
        """
    }

    /// The click onsets of rendering `session` for `seconds` with `options`.
    static func onsets(_ session: String, seconds: Double = 2.1, options: [String] = []) throws -> [Int] {
        let path = temporaryPath("metro.yaml")
        try session.write(toFile: path, atomically: true, encoding: .utf8)
        let output = path.replacingOccurrences(of: ".yaml", with: ".wav")
        let result = try trellis(["render", path, "-o", output, "--duration", "\(seconds)"] + options)
        guard result.status == 0 else { throw RenderFailure(result.stderr) }
        return clickOnsets(try firstChannel(ofFile: output))
    }

    struct RenderFailure: Error { var message: String; init(_ message: String) { self.message = message } }

    @Test("at 120 BPM and 48 kHz eg-metro clicks every 24,000 frames, the first on the transport's first frame")
    func clicksAt120() throws {
        #expect(try Self.onsets(Self.metronome()) == [0, 24_000, 48_000, 72_000, 96_000])
    }

    @Test("--tempo 90 spaces the clicks 32,000 frames")
    func tempoOption() throws {
        #expect(try Self.onsets(Self.metronome(), options: ["--tempo", "90"]) == [0, 32_000, 64_000, 96_000])
    }

    @Test("a start half a beat in puts the first click half a beat later")
    func startOption() throws {
        #expect(try Self.onsets(Self.metronome(), seconds: 1.1, options: ["--start", "1|1|960"]) == [12_000, 36_000])
        #expect(try Self.onsets(Self.metronome(transport: "transport: { tempo: 120, start: 0.25s }"), seconds: 1.1) == [12_000, 36_000])
    }

    @Test("a session's transport is checked where it is written")
    func badTransport() throws {
        let path = temporaryPath("bad.yaml")
        try Self.metronome(transport: "transport: { tempo: 120, meter: 4/5 }").write(toFile: path, atomically: true, encoding: .utf8)
        let result = try trellis(["validate", path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("bad.yaml:3:") && result.stderr.contains("meter \"4/5\" is not a meter"), "\(result.stderr)")
        let start = temporaryPath("start.yaml")
        try Self.metronome(transport: "transport: { start: 1|5|0 }").write(toFile: start, atomically: true, encoding: .utf8)
        let refused = try trellis(["validate", start])
        #expect(refused.status != 0 && refused.stderr.contains("no position in this meter"), "\(refused.stderr)")
    }

    /// An impulse through a delay synced to the host's tempo, which it reads from a
    /// control port designated `time:beatsPerMinute`: the first echo, one beat later.
    static func firstEcho(plugin: String, parameters: String, channels: Int, tempo: Int) throws -> Int {
        let folder = temporaryPath("echo-\(tempo)-\(abs(plugin.hashValue))")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var impulse = [Float](repeating: 0, count: 48_000 * 2 * channels)
        for channel in 0..<channels { impulse[channel] = 1 }
        try FloatWAV.write(impulse, channels: channels, sampleRate: 48_000, to: folder + "/impulse.wav")
        let session = """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            transport: { tempo: \(tempo) }
            nodes:
              click: { unit: player, file: impulse.wav }
              delay: { lv2: "\(plugin)", parameters: \(parameters) }
              out: { unit: output, channels: \(channels) }
            connections: [click -> delay -> out]
            """
        try session.write(toFile: folder + "/echo.yaml", atomically: true, encoding: .utf8)
        let result = try trellis(["render", folder + "/echo.yaml", "-o", folder + "/echo.wav", "--duration", "2"])
        guard result.status == 0 else { throw RenderFailure(result.stderr) }
        let output = try firstChannel(ofFile: folder + "/echo.wav")
        let loudest = output[4_800...].map(abs).max() ?? 0
        return output[4_800...].firstIndex { abs($0) > 0.5 * loudest } ?? -1
    }

    @Test("a delay synced to the tempo it reads from a time:beatsPerMinute control port echoes one beat later at 60, 90 and 120 BPM",
          arguments: [
            // NOTES 5 is a quarter note in guitarix's own table (its labels are one place off).
            ("http://guitarix.sourceforge.net/plugins/gx_digital_delay_#_digital_delay_", "{ SYNC: 1, NOTES: 5, FEEDBACK: 1, LEVEL: 100 }", 1),
            ("http://calf.sourceforge.net/plugins/VintageDelay", "{ timing: 3, subdiv: 4, time_l: 4, time_r: 4, feedback: 0, amount: 1, dry: 0 }", 2),
          ])
    func tempoFromControlPort(plugin: String, parameters: String, channels: Int) throws {
        for tempo in [60, 90, 120] {
            let echo = try Self.firstEcho(plugin: plugin, parameters: parameters, channels: channels, tempo: tempo)
            let beat = 48_000 * 60 / tempo
            #expect(abs(echo - beat) <= 64, "\(plugin) at \(tempo) BPM: echo at \(echo), a beat is \(beat) frames")
        }
    }
}
