import Foundation
import Testing
import TrellisTestSupport


@Suite("A player's rate")
struct PlayerRateTests {
    /// Renders a 3 s 440 Hz mono file through a player with `parameters`; the output's
    /// left channel.
    static func render(_ parameters: String) throws -> [Float] {
        let tone = temporaryPath("a440.wav")
        try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "float", tone, "synth", "3", "sine", "440", "vol", "0.5"])
        let session = temporaryPath("rate.yaml")
        try """
            version: 1
            nodes:
              p: { unit: player, file: \(tone), channels: 1, parameters: { \(parameters) } }
              out: { unit: output, channels: 1 }
            connections:
              - p -> out
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let output = temporaryPath("out.wav")
        let run = try trellis(["render", session, "--output", output])
        #expect(run.status == 0, "\(run.stderr)")
        return try floats(output)
    }

    @Test("at rate 1.5 a 440 Hz tone stays at 440 Hz ±0.5 Hz and ends at 1/1.5 of the file's duration")
    func fasterKeepsPitch() throws {
        let output = try Self.render("rate: 1.5")
        #expect(abs(output.count - 96_000) <= 1, "\(output.count) frames")
        #expect(abs(peakHertz(output[24_000..<72_000], low: 430, high: 450) - 440) <= 0.5)
    }

    @Test("at rate 0.5 the duration doubles (±1 frame) and 440 Hz stays 440 Hz")
    func slowerKeepsPitch() throws {
        let output = try Self.render("rate: 0.5")
        #expect(abs(output.count - 288_000) <= 1, "\(output.count) frames")
        #expect(abs(peakHertz(output[96_000..<192_000], low: 430, high: 450) - 440) <= 0.5)
    }

    @Test("the stretched file equals the rubberband command's output with the same rate")
    func equalsTheCommand() throws {
        let tone = temporaryPath("a440.wav"), reference = temporaryPath("rubberband.wav")
        try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "float", tone, "synth", "3", "sine", "440", "vol", "0.5"])
        #expect(try runTool("/usr/bin/rubberband", ["-q", "-3", "--ignore-clipping", "-T", "1.5", tone, reference]) == 0)
        let ours = try Self.render("rate: 1.5"), theirs = try floats(reference)
        #expect(ours.count == theirs.count)
        #expect(zip(ours, theirs).map { abs($0 - $1) }.max()! < 1e-5)
    }

    @Test("with varispeed on, rate 2 plays an octave up in half the time, as before")
    func varispeedMovesPitch() throws {
        let output = try Self.render("rate: 2, varispeed: on")
        #expect(abs(output.count - 72_000) <= 1, "\(output.count) frames")
        #expect(abs(peakHertz(output[12_000..<60_000], low: 870, high: 890) - 880) <= 0.5)
    }
}
