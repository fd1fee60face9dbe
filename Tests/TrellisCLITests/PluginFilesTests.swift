import Foundation
import Testing

/// Files for plugins (`files:`): samples, SoundFonts and impulse responses given by
/// name, heard in what the plugin renders.
@Suite("Files for plugins")
struct PluginFilesTests {
    static let song = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sessions/audio/song.mid").standardized.path

    /// A session that plays the song into `plugin`, whose `files:` are `files`.
    func render(_ plugin: String, files: [String: String], channels: Int, in folder: String) throws -> [Float] {
        let session = folder + "/session-\(UUID().uuidString).yaml", output = session.replacingOccurrences(of: ".yaml", with: ".wav")
        let list = files.map { "\"\($0.key)\": \"\($0.value)\"" }.joined(separator: ", ")
        try """
            version: 1
            defaults: { sample-rate: 48000 }
            nodes:
              song: { unit: midi-player, file: \(Self.song) }
              synth:
                lv2: "\(plugin)"
            \(files.isEmpty ? "" : "    files: { \(list) }")
              out: { unit: output, channels: \(channels) }
            connections: [song -> synth -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let result = try trellis(["render", session, "-o", output, "--duration", "3"])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        return try floats(output)
    }

    /// Sign changes of channel 0 of `channels`.
    func zeroCrossings(_ samples: [Float], channels: Int) -> Int {
        var count = 0, previous: Float = 0
        for value in stride(from: 0, to: samples.count, by: channels).map({ samples[$0] }) where value != 0 {
            if previous != 0, (value > 0) != (previous > 0) { count += 1 }
            previous = value
        }
        return count
    }

    func sine(_ frequency: Int, in folder: String) throws -> String {
        let path = folder + "/sine\(frequency).wav"
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", "1", "sine", "\(frequency)"]) == 0)
        return path
    }

    /// eg-sampler has a sample of its own (a click); samplv1 has none.
    @Test("samplv1 and eg-sampler play the sample given, an octave up with a sample an octave up",
          arguments: [("http://samplv1.sourceforge.net/lv2", "P101_SAMPLE_FILE", 2, true), ("http://lv2plug.in/plugins/eg-sampler", "sample", 1, false)])
    func samplerPlaysItsSample(_ plugin: String, _ slot: String, _ channels: Int, _ silentWithout: Bool) throws {
        let folder = URL(fileURLWithPath: temporaryPath("x")).deletingLastPathComponent().path
        _ = try sine(220, in: folder)
        let high = try sine(440, in: folder)
        if silentWithout {
            let silent = try render(plugin, files: [:], channels: channels, in: folder)
            #expect(silent.map(abs).max() ?? 1 < 1e-4, "no sample, no sound")
        }
        // Relative to the session file, as a player's file is.
        let lower = try render(plugin, files: [slot: "sine220.wav"], channels: channels, in: folder)
        let upper = try render(plugin, files: [slot: high], channels: channels, in: folder)
        #expect(lower.map(abs).max() ?? 0 > 0.1)
        let ratio = Double(zeroCrossings(upper, channels: channels)) / Double(zeroCrossings(lower, channels: channels))
        #expect(abs(ratio - 2) < 0.1, "zero crossings \(ratio)× with the sample an octave up")
    }

    @Test("calf Fluidsynth plays the SoundFont given under its state key urn:calf:soundfont")
    func soundFontIntoCalfFluidsynth() throws {
        let folder = URL(fileURLWithPath: temporaryPath("x")).deletingLastPathComponent().path
        let plugin = "http://calf.sourceforge.net/plugins/Fluidsynth"
        let silent = try render(plugin, files: [:], channels: 2, in: folder)
        #expect(silent.map(abs).max() ?? 1 < 1e-4, "no SoundFont, no sound")
        let played = try render(plugin, files: ["urn:calf:soundfont": "/usr/share/sounds/sf2/FluidR3_GM.sf2"], channels: 2, in: folder)
        let rms = (played.reduce(0) { $0 + Double($1 * $1) } / Double(played.count)).squareRoot()
        #expect(rms > 0.005, "RMS \(rms) with FluidR3_GM")
    }

    /// An impulse response of a single tap, half its height and 4800 frames late, makes
    /// the output half the input, 4800 frames (plus the plugin's latency) later. LSP's
    /// data names its file parameter with a URI the plugin does not read (see
    /// `LV2PluginUnit.keys`), and its convolver is dry and channel-less by default.
    @Test("x42 zeroconvolv and LSP Impulse Responses convolve with the impulse response given: one tap of 0.5 at 0.1 s halves and delays the input",
          arguments: [["lv2:http://gareus.org/oss/lv2/zeroconvolv#CfgMono", "files.ir=ir.wav"],
                      ["lv2:http://lsp-plug.in/plugins/lv2/impulse_responses_mono", "files.ifn=ir.wav", "cs=Left", "dry=0"]])
    func impulseResponseIntoConvolver(_ stage: [String]) throws {
        let (folder, input, response) = try convolverFiles()
        let output = folder + "/convolved.wav"
        let settings = stage.map { $0.replacingOccurrences(of: "=ir.wav", with: "=" + response) }
        let result = try trellis(["chain", input, "!"] + settings + ["!", output])
        #expect(result.status == 0, "\(result.stderr)")
        try expectHalvedAndDelayed(try floats(output), input: try floats(input))
    }

    @Test("chain --save writes the files relative to the session, and the session renders what the chain rendered")
    func savedChainKeepsItsFiles() throws {
        let (folder, input, response) = try convolverFiles()
        let chained = folder + "/chained.wav", rendered = folder + "/rendered.wav", session = folder + "/chain.yaml"
        let result = try trellis(["chain", "--save", session, input, "!", "lv2:http://gareus.org/oss/lv2/zeroconvolv#CfgMono", "files.ir=\(response)", "!", chained])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: session, encoding: .utf8)
        #expect(text.contains("files:") && text.contains("ir: ir.wav"), "\(text)")
        #expect(try trellis(["render", session, "-o", rendered]).status == 0)
        #expect(try floats(rendered) == floats(chained))
    }

    @Test("info lists the names a plugin takes files under")
    func infoListsFiles() throws {
        let text = try trellis(["info", "lv2:http://samplv1.sourceforge.net/lv2"])
        #expect(text.stdout.contains("files:\n  P101_SAMPLE_FILE: P101 Sample File <http://samplv1.sourceforge.net/lv2#P101_SAMPLE_FILE>"), "\(text.stdout)")
        let json = try trellis(["info", "--json", "lv2:http://gareus.org/oss/lv2/zeroconvolv#CfgMono"])
        let files = try #require((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["files"] as? [[String: String]])
        #expect(files.map { $0["name"] } == ["ir"])
    }

    @Test("a missing file, and a name the plugin takes no file under, are errors that say what and where")
    func badFiles() throws {
        let (folder, input, response) = try convolverFiles()
        let session = folder + "/bad.yaml"
        try """
            version: 1
            nodes:
              in: { unit: player, file: \(input) }
              conv:
                lv2: "http://gareus.org/oss/lv2/zeroconvolv#CfgMono"
                files: { ir: missing.wav }
              out: { unit: output, channels: 1 }
            connections: [in -> conv -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let missing = try trellis(["render", session, "-o", folder + "/never.wav"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("bad.yaml:6:") && missing.stderr.contains("\(folder)/missing.wav for \"ir\""), "\(missing.stderr)")
        let unknown = try trellis(["chain", input, "!", "lv2:http://gareus.org/oss/lv2/zeroconvolv#CfgMono", "files.impulse=\(response)", "!", folder + "/never.wav"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no file named \"impulse\"") && unknown.stderr.contains("it takes ir"), "\(unknown.stderr)")
        let builtIn = try trellis(["chain", input, "!", "gain", "files.ir=\(response)", "!", folder + "/never.wav"])
        #expect(builtIn.status != 0 && builtIn.stderr.contains("takes no files"), "\(builtIn.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/never.wav"))
    }
}

/// A folder with `in.wav` (an impulse at 0.3 s, a 100-frame burst at 0.5 s) and
/// `ir.wav` (0.5 at frame 4800 of 9600), both written by sox.
func convolverFiles() throws -> (folder: String, input: String, response: String) {
    let folder = URL(fileURLWithPath: temporaryPath("x")).deletingLastPathComponent().path
    let input = folder + "/in.wav", response = folder + "/ir.wav"
    var samples = [Float](repeating: 0, count: 48_000)
    samples[14_400] = 1
    for index in 0..<100 { samples[24_000 + index] = 0.5 * Float(sin(Double(index) * 0.3)) }
    var tap = [Float](repeating: 0, count: 9_600)
    tap[4_800] = 0.5
    for (path, data) in [(input, samples), (response, tap)] {
        let raw = path + ".f32"
        try data.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: raw))
        #expect(try runTool("/usr/bin/sox", ["-t", "f32", "-r", "48000", "-c", "1", raw, "-e", "float", "-b", "32", path]) == 0)
    }
    return (folder, input, response)
}

/// `output` is `input` halved and delayed by 4800 frames plus a latency of at most
/// 2048 frames, to 1e-4.
func expectHalvedAndDelayed(_ output: [Float], input: [Float]) throws {
    #expect(output.count == input.count)
    // The impulse at 0.3 s shows where the tap and the latency put the input.
    let arrival = try #require(output[(14_400 + 4_800)...].firstIndex { abs($0) > 0.25 }, "the impulse never came out")
    let lag = arrival - 14_400
    #expect((4_800...(4_800 + 2_048)).contains(lag), "delay \(lag) frames")
    var worst: Float = 0
    for index in 12_000..<(input.count - lag) { worst = max(worst, abs(output[index + lag] - 0.5 * input[index])) }
    #expect(worst < 1e-4, "largest difference \(worst) at a delay of \(lag) frames")
}
