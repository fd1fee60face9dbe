import Foundation
import Testing

@Suite("trellis chain through MIDI")
struct ChainMIDITests {
    static let onsets = "lv2:http://gareus.org/oss/lv2/onsettrigger#bassdrum_mono"
    static let piano = "lv2:http://drobilla.net/plugins/mda/EPiano"

    /// 1 s, mono: silence, a 60 Hz burst from 0.25 s to 0.35 s, silence.
    static func kick() throws -> String {
        let path = temporaryPath("kick.wav")
        let status = try runTool("/usr/bin/sox", [
            "-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "floating-point", path, "synth", "0.1", "sine", "60", "pad", "0.25", "0.65",
        ])
        #expect(status == 0)
        return path
    }

    @Test("audio into an onset detector plays an instrument: the chain connects MIDI where only MIDI flows")
    func onsetsPlayAPiano() throws {
        let out = temporaryPath("piano.wav")
        let result = try trellis(["chain", try Self.kick(), "!", Self.onsets, "!", Self.piano, "!", out])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try floats(out)
        #expect(samples.count == 48_000)
        let first = try #require(samples.firstIndex { abs($0) > 1e-4 }, "the piano plays")
        // The detector needs a few milliseconds of the burst; it cannot fire before it.
        #expect(first >= 12_000 && first < 16_800, "first sound at frame \(first), expected 0.25–0.35 s")
    }

    @Test("synthv1, which starts Qt when instantiated, loads and plays a note with no display")
    func qtInstrumentWithoutDisplay() throws {
        let out = temporaryPath("synthv1.wav")
        let result = try trellis(
            ["chain", try Self.kick(), "!", Self.onsets, "!", "lv2:http://synthv1.sourceforge.net/lv2", "!", out],
            removing: ["DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try floats(out)
        let first = try #require(samples.firstIndex { abs($0) > 1e-3 }, "synthv1 plays")
        #expect(first >= 12_000 && first < 16_800, "first sound at frame \(first), expected 0.25–0.35 s")
        #expect(samples.allSatisfy { $0.isFinite })
    }

    @Test("a chain that ends in a unit sending only MIDI is refused, saying how to end it")
    func midiOnlyEndIsRefused() throws {
        let out = temporaryPath("none.wav")
        let result = try trellis(["chain", try Self.kick(), "!", Self.onsets, "!", out])
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(Self.onsets) sends MIDI and no audio, so nothing reaches \(out); end the chain with an instrument"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

@Suite("trellis chain with side-chain plugins")
struct ChainSideChainTests {
    @Test("swh sc2 in a chain compresses its main input (the side-chain, listed first, stays silent)")
    func sc2ProcessesMainInput() throws {
        let input = temporaryPath("sine.wav"), out = temporaryPath("sc2.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "floating-point", input, "synth", "1", "sine", "440", "vol", "0.5"]) == 0)
        let result = try trellis(["chain", input, "!", "lv2:http://plugin.org.uk/swh-plugins/sc2", "!", out])
        #expect(result.status == 0, "\(result.stderr)")
        let dry = try floats(input), wet = try floats(out)
        func rms(_ x: ArraySlice<Float>) -> Float { (x.reduce(0) { $0 + $1 * $1 } / Float(x.count)).squareRoot() }
        // A silent side-chain never triggers the compressor: the input passes at unity.
        let ratio = rms(wet[24_000...]) / rms(dry[24_000...])
        #expect(abs(20 * log10(ratio)) < 0.5, "output is \(20 * log10(ratio)) dB from the input")
    }
}

@Suite("Offline renders are deterministic")
struct DeterministicRenderTests {
    @Test("gx_cabinet, which loads its impulse response through the worker, renders the same file three times")
    func workerPluginRendersAlike() throws {
        let input = temporaryPath("noise.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "floating-point", input, "synth", "2", "pinknoise", "vol", "0.3"]) == 0)
        var renders: [[Float]] = []
        for take in 1...3 {
            let out = temporaryPath("cab\(take).wav")
            let result = try trellis(["chain", input, "!", "lv2:http://guitarix.sourceforge.net/plugins/gx_cabinet#CABINET", "c_model=5", "!", out])
            #expect(result.status == 0, "\(result.stderr)")
            renders.append(try floats(out))
        }
        #expect(renders[0].count == 96_000)
        #expect(renders[0].contains { $0 != 0 }, "the cabinet passes sound")
        #expect(renders[1] == renders[0] && renders[2] == renders[0], "three renders, one file")
    }
}
