import Foundation
import Testing
import TrellisTestSupport

@Suite("Time-pitch and varispeed units")
struct TimePitchUnitTests {
    /// A 3 s 440 Hz stereo tone file.
    static func tone() throws -> String {
        let path = temporaryPath("a440.wav")
        try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "float", path, "synth", "3", "sine", "440", "vol", "0.5"])
        return path
    }

    /// Renders `text` (a session; FILE is the tone) and returns the left channel, or the error.
    static func render(_ text: String, duration: Double? = nil) throws -> (samples: [Float], error: String) {
        let session = temporaryPath("session.yaml"), output = temporaryPath("out.wav")
        try text.replacingOccurrences(of: "FILE", with: try tone()).write(toFile: session, atomically: true, encoding: .utf8)
        let run = try trellis(["render", session, "--output", output] + (duration.map { ["--duration", "\($0)"] } ?? []))
        guard run.status == 0 else { return ([], run.stderr) }
        let all = try floats(output)
        return (stride(from: 0, to: all.count, by: 2).map { all[$0] }, "")
    }

    static func fedByPlayer(_ unit: String) -> String {
        """
        version: 1
        nodes:
          p: { unit: player, file: FILE }
          tp: { unit: \(unit) }
          out: output
        connections:
          - p -> tp
          - tp -> out
        """
    }

    @Test("+1200 cents turns 440 Hz into 880 Hz ±0.5 Hz with the duration unchanged")
    func octaveUp() throws {
        let output = try Self.render(Self.fedByPlayer("timepitch, parameters: { pitch: 1200 }"))
        #expect(abs(output.samples.count - 144_000) <= 1, "\(output.samples.count) frames \(output.error)")
        #expect(abs(peakHertz(output.samples[48_000..<96_000], low: 870, high: 890) - 880) <= 0.5)
    }

    @Test("rate 0.5 doubles the duration (±1 frame) and keeps 440 Hz at 440 Hz ±0.5 Hz")
    func halfRate() throws {
        let output = try Self.render(Self.fedByPlayer("timepitch, parameters: { rate: 0.5 }"))
        #expect(abs(output.samples.count - 288_000) <= 1, "\(output.samples.count) frames \(output.error)")
        #expect(abs(peakHertz(output.samples[96_000..<192_000], low: 430, high: 450) - 440) <= 0.5)
    }

    @Test("offline, the output equals the rubberband command's with the same rate and pitch")
    func equalsTheCommand() throws {
        let output = try Self.render(Self.fedByPlayer("timepitch, parameters: { rate: 0.8, pitch: -300 }"))
        let reference = temporaryPath("rubberband.wav"), input = temporaryPath("a440.wav")
        try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "float", input, "synth", "3", "sine", "440", "vol", "0.5"])
        #expect(try runTool("/usr/bin/rubberband", ["-q", "-3", "--ignore-clipping", "-T", "0.8", "-p", "-3", input, reference]) == 0)
        let all = try floats(reference)
        let theirs = stride(from: 0, to: all.count, by: 2).map { all[$0] }
        #expect(output.samples.count == theirs.count)
        #expect((zip(output.samples, theirs).map { abs($0 - $1) }.max() ?? 1) < 1e-5)
    }

    @Test("varispeed at rate 2 plays 880 Hz in half the time, as the resampler's math says")
    func varispeedDoubles() throws {
        let output = try Self.render(Self.fedByPlayer("varispeed, parameters: { rate: 2 }"))
        #expect(abs(output.samples.count - 72_000) <= 1, "\(output.samples.count) frames \(output.error)")
        #expect(abs(peakHertz(output.samples[12_000..<60_000], low: 870, high: 890) - 880) <= 0.5)
    }

    @Test("a rate other than 1 with no player feeding the unit is refused, naming the node")
    func liveRateRefused() throws {
        let output = try Self.render("""
            version: 1
            nodes:
              t: tone
              fast: { unit: timepitch, parameters: { rate: 2 } }
              out: output
            connections:
              - t -> fast
              - fast -> out
            """, duration: 1)
        #expect(output.error.contains("fast") && output.error.contains("needs a file player"), "\(output.error)")
    }

    @Test("fed by a live stream, it shifts pitch in real time: +1200 cents turns 440 Hz into 880 Hz")
    func livePitchShift() throws {
        let output = try Self.render("""
            version: 1
            nodes:
              t: { unit: tone, parameters: { freq: 440 } }
              up: { unit: timepitch, parameters: { pitch: 1200 } }
              out: output
            connections:
              - t -> up
              - up -> out
            """, duration: 2)
        #expect(output.samples.count == 96_000, "\(output.error)")
        #expect(abs(peakHertz(output.samples[48_000..<96_000], low: 870, high: 890) - 880) <= 0.5)
    }

    @Test("its latency is compensated beside a dry path: a burst through both arrives once, together")
    func latencyCompensated() throws {
        let burst = temporaryPath("burst.wav")
        try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "float", burst,
                                     "synth", "0.2", "sine", "1000", "vol", "0.5", "pad", "0.5", "1.3"])
        let output = try Self.render("""
            version: 1
            nodes:
              p: { unit: player, file: \(burst) }
              split: splitter
              shift: { unit: timepitch, parameters: { pitch: 0 } }
              mix: { unit: mixer, inputs: 2 }
              out: output
            connections:
              - p -> split
              - split.0 -> shift
              - split.1 -> mix.1
              - shift -> mix.0
              - mix -> out
            """, duration: 2)
        let onset = try #require(output.samples.firstIndex { abs($0) > 0.01 })
        // The dry path waits for the wet one: nothing before the burst's delayed start.
        #expect(onset > 24_000 + 2048, "onset \(onset)")
        let level = output.samples[(onset + 2400)..<(onset + 7200)].map { abs($0) }.max()!
        // Dry and wet in phase: about twice one path's 0.5.
        #expect(level > 0.6, "peak \(level)")
    }

    @Test("Core Audio's example graph ships: Sessions/compressor-pitch.yaml renders its keys three semitones up")
    func coreAudioExample() throws {
        let session = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sessions/compressor-pitch.yaml").path
        let output = temporaryPath("pitched.wav")
        let run = try trellis(["render", session, "--output", output])
        #expect(run.status == 0, "\(run.stderr)")
        let all = try floats(output)
        let left = stride(from: 0, to: all.count, by: 2).map { all[$0] }
        #expect(left.count == 16 * 12_000)
        // The keys' 440 Hz, 300 cents up.
        #expect(abs(peakHertz(left[48_000..<144_000], low: 515, high: 530) - 440 * pow(2, 0.25)) <= 0.5)
    }
}
