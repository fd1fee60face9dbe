import Foundation
import Testing

/// The frequency in `low...high` Hz where a Hann-windowed DTFT of `signal` peaks: a
/// 0.25 Hz scan, then 0.01 Hz steps around the best.
func peakHertz(_ signal: ArraySlice<Float>, low: Double, high: Double, sampleRate: Double = 48_000) -> Double {
    let count = signal.count
    let windowed = signal.enumerated().map { Double($0.element) * (0.5 - 0.5 * cos(2 * Double.pi * Double($0.offset) / Double(count - 1))) }
    func power(_ frequency: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        var re = 0.0, im = 0.0
        for (index, sample) in windowed.enumerated() {
            re += sample * cos(w * Double(index))
            im -= sample * sin(w * Double(index))
        }
        return re * re + im * im
    }
    func best(from start: Double, to end: Double, by step: Double) -> Double {
        stride(from: start, through: end, by: step).max { power($0) < power($1) } ?? start
    }
    let coarse = best(from: low, to: high, by: 0.25)
    return best(from: max(low, coarse - 0.3), to: min(high, coarse + 0.3), by: 0.01)
}

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
