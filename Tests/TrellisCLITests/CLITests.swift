import Foundation
import Testing
import TrellisTestSupport

/// Runs the built `trellis` executable, which sits beside the test bundle, with
/// `environment` added to the test's own and the variables in `removing` taken out.
/// Discovery's cache and name table go to a folder of the test process, not the user's.
func trellis(_ arguments: [String], environment: [String: String] = [:], removing: [String] = []) throws -> (status: Int32, stdout: String, stderr: String) {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let process = Process()
    (process.executableURL, process.arguments) = deadlined(directory.appendingPathComponent("trellis").path, arguments)
    let kept = ["XDG_CACHE_HOME": testStateFolder + "/cache", "XDG_STATE_HOME": testStateFolder + "/state"]
    process.environment = ProcessInfo.processInfo.environment.merging(kept) { $1 }.merging(environment) { $1 }
        .filter { !removing.contains($0.key) }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

/// Where `trellis` keeps its cache and state during this test process.
let testStateFolder = temporaryPath("xdg")

/// A file path in a fresh temporary folder.
func temporaryPath(_ name: String) -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-cli-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent(name).path
}

/// `tool` and its arguments under `timeout`: SIGTERM after `seconds`, SIGKILL 5 s later,
/// so no program a test starts can hold the suite.
func deadlined(_ tool: String, _ arguments: [String], seconds: Int = 300) -> (URL, [String]) {
    (URL(fileURLWithPath: "/usr/bin/timeout"), ["-k", "5", "\(seconds)", tool] + arguments)
}

/// Runs an outside program quietly, under a deadline, and returns its exit status.
@discardableResult
func runTool(_ tool: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    (process.executableURL, process.arguments) = deadlined(tool, arguments)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

/// What an outside program prints on stdout, under a deadline.
func output(of tool: String, _ arguments: [String]) throws -> Data {
    let process = Process()
    (process.executableURL, process.arguments) = deadlined(tool, arguments)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}

/// A file's samples, interleaved, as sox (an outside program) decodes them to float.
func floats(_ path: String) throws -> [Float] {
    try output(of: "/usr/bin/sox", [path, "-t", "f32", "-"]).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}

@Suite("The trellis command")
struct CLITests {
    @Test("units lists the built-ins with their triples")
    func unitsListsBuiltIns() throws {
        let result = try trellis(["units"])
        #expect(result.status == 0)
        for line in ["augn:tone:trls  tone", "auou:genr:trls  output", "aufc:splt:trls  splitter", "aufc:merg:trls  merger"] {
            #expect(result.stdout.contains(line), "missing \(line)")
        }
    }

    @Test("units --json is a JSON array naming each unit's triple")
    func unitsJSON() throws {
        let result = try trellis(["units", "--json"])
        let entries = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(entries.contains { $0["triple"] as? String == "augn:tone:trls" && $0["name"] as? String == "tone" })
    }

    @Test("info tone --json parses as JSON and names its parameters")
    func infoToneJSON() throws {
        let result = try trellis(["info", "tone", "--json"])
        #expect(result.status == 0)
        let info = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let parameters = try #require(info["parameters"] as? [[String: Any]])
        let names = Set(parameters.compactMap { $0["identifier"] as? String })
        #expect(names.isSuperset(of: ["waveform", "freq", "amp"]))
        let frequency = try #require(parameters.first { $0["identifier"] as? String == "freq" })
        #expect(frequency["defaultValue"] as? Double == 440)
    }

    @Test("info --json stays JSON when the plugin prints to standard output as it starts (guitarix)")
    func infoJSONKeptFromPlugins() throws {
        let result = try trellis(["info", "lv2:http://guitarix.sourceforge.net/plugins/gx_amp#GUITARIX", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("using block size"), "what the plugin printed goes to standard error")
        let info = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(info["uri"] as? String == "http://guitarix.sourceforge.net/plugins/gx_amp#GUITARIX")
    }

    @Test("info finds a unit by its triple")
    func infoByTriple() throws {
        let result = try trellis(["info", "aufx:gain:trls"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("gain (aufx:gain:trls)"))
    }

    @Test("an unknown unit fails with status 1 and suggests the closest names")
    func unknownUnit() throws {
        let result = try trellis(["info", "tnoe"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no unit named \"tnoe\" (did you mean tone?)"))
    }

    @Test("--version prints the version")
    func version() throws {
        let result = try trellis(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }
}

@Suite("trellis chain")
struct ChainCommandTests {
    /// Reads a file's first channel through sox, an outside program, as text samples.
    @Test("a tone through a gain renders the sine scaled by the gain, as sox reads it back")
    func toneThroughGain() throws {
        let out = temporaryPath("out.wav")
        let result = try trellis(["chain", "--duration", "0.5", "tone", "freq=1000", "amp=0.5", "channels=1", "!", "gain", "gain=-6", "!", out])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try floats(out)
        #expect(samples.count == 24_000)
        let amplitude: Double = 0.5 * pow(10, -6.0 / 20)
        var error: Double = 0
        for (frame, sample) in samples.enumerated() {
            let expected: Double = amplitude * sin(2 * Double.pi * 1000 * Double(frame) / 48_000)
            error = max(error, abs(Double(sample) - expected))
        }
        #expect(error < 2e-5)
    }

    @Test("a file source renders to a file sink of the same length and rate")
    func fileToFile() throws {
        let source = temporaryPath("in.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", source, "synth", "0.25", "sine", "440"]) == 0)
        let out = temporaryPath("out.flac")
        let result = try trellis(["chain", "--sample-type", "int16", source, "!", "gain", "gain=0", "!", out])
        #expect(result.status == 0, "\(result.stderr)")
        let original = try floats(source)
        let rendered = try floats(out)
        #expect(rendered.count == original.count)
        #expect(zip(original, rendered).allSatisfy { $0 == $1 }, "a 0 dB gain is transparent, bit for bit at int16")
    }

    @Test("a setting that names no parameter fails, naming the stage and suggesting names")
    func unknownSetting() throws {
        let result = try trellis(["chain", "--duration", "0.1", "tone", "!", "gain", "gian=-6", "!", temporaryPath("x.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\"gain\" (argument 3): gain (aufx:gain:trls) has no parameter named \"gian\" (did you mean gain?)"))
    }

    @Test("a tone source without a duration is refused")
    func toneNeedsDuration() throws {
        let result = try trellis(["chain", "tone", "!", temporaryPath("x.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--duration"))
    }
}

@Suite("trellis chain with LV2 plugins")
struct ChainLV2Tests {
    @Test("a chain of two files and an LV2 plugin gives what lv2apply gives with the same settings",
          arguments: [
            ("http://lv2plug.in/plugins/eg-amp", ["gain=-6"], ["-c", "gain", "-6"]),
            ("http://plugin.org.uk/swh-plugins/dj_eq_mono", ["lo=-6", "mid=3", "hi=-2"], ["-c", "lo", "-6", "-c", "mid", "3", "-c", "hi", "-2"]),
            // Plugins with a latency port and state of their own: the run that measures
            // their latency is another instance's, so the one that renders starts fresh.
            ("http://plugin.org.uk/swh-plugins/amPitchshift", ["pitch=1.5"], ["-c", "pitch", "1.5"]),
            ("http://lsp-plug.in/plugins/lv2/oscillator_mono", [], []),
          ])
    func matchesLv2apply(uri: String, settings: [String], lv2applyControls: [String]) throws {
        let source = temporaryPath("in.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "float", source, "synth", "0.5", "pinknoise", "vol", "0.5"]) == 0)
        let ours = temporaryPath("trellis.wav"), theirs = temporaryPath("lv2apply.wav")
        let result = try trellis(["chain", source, "!", "lv2:\(uri)"] + settings + ["!", ours])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try runTool("/usr/bin/lv2apply", ["-i", source, "-o", theirs] + lv2applyControls + [uri]) == 0)
        let a = try floats(ours), b = try floats(theirs)
        #expect(a.count == b.count && a.count == 24_000)
        let difference = zip(a, b).map { abs($0 - $1) }.max() ?? 1
        #expect(difference < 1e-6, "largest difference \(difference)")
    }
}

extension ChainLV2Tests {
    /// 8 plugins from 3 libraries, rendered from a session at a block size other than
    /// 4096 (so initialized twice: at the session's block size, then for offline slices):
    /// each library's initialisers run once, as the dynamic loader reports.
    @Test("a render loads each plugin library once, however often its plugins are initialized")
    func librariesLoadOnce() throws {
        let folder = temporaryPath("libraries")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "float", folder + "/in.wav", "synth", "0.2", "sine", "440"]) == 0)
        let plugins = [
            "http://lv2plug.in/plugins/eg-amp", "http://lv2plug.in/plugins/eg-amp", "http://lv2plug.in/plugins/eg-amp",
            "http://plugin.org.uk/swh-plugins/dj_eq_mono", "http://plugin.org.uk/swh-plugins/dj_eq_mono",
            "http://plugin.org.uk/swh-plugins/amPitchshift", "http://plugin.org.uk/swh-plugins/amPitchshift",
            "http://plugin.org.uk/swh-plugins/amPitchshift",
        ]
        let nodes = plugins.enumerated().map { "  fx\($0.offset): { lv2: \"\($0.element)\" }" }.joined(separator: "\n")
        let chain = (["src"] + plugins.indices.map { "fx\($0)" } + ["out"]).joined(separator: " -> ")
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              src: { unit: player, file: in.wav }
            \(nodes)
              out: { unit: output, channels: 1 }
            connections: [\(chain)]
            """.write(toFile: folder + "/eight.yaml", atomically: true, encoding: .utf8)
        let result = try trellis(["render", folder + "/eight.yaml", "-o", folder + "/out.wav"],
                                 environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": folder + "/ld"])
        #expect(result.status == 0, "\(result.stderr)")
        var seen: Set<String> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("ld.") {
            var initialized: [String: Int] = [:]
            for line in try String(contentsOfFile: folder + "/" + name, encoding: .utf8).split(separator: "\n")
            where line.contains("calling init: /usr/lib/lv2/") {
                initialized[String(line.split(separator: " ").last ?? ""), default: 0] += 1
            }
            seen.formUnion(initialized.keys)
            for (library, count) in initialized { #expect(count == 1, "\(library) initialized \(count) times in \(name)") }
        }
        #expect(seen.count == 3, "the loader's log names the three libraries: \(seen)")
    }

    /// padthv1 crashes in its own teardown; the work is done by then.
    @Test("a render whose plugin crashes in its teardown exits 0 with its file complete")
    func teardownCrashAfterWork() throws {
        let song = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sessions/audio/song.mid").standardized.path
        let output = temporaryPath("padthv1.wav")
        let result = try trellis(["chain", "--duration", "2", song, "!", "lv2:http://padthv1.sourceforge.net/lv2", "!", output])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        // (padthv1 itself gives non-finite samples here, which the render silences and
        // reports; what matters is that the work done is reported done.)
        #expect(try floats(output).count == 2 * 96_000)
    }

    /// a-fluidsynth's library registers GLib types when it loads; loaded a second time
    /// (a session render initializes its plugins twice unless the block size is 4096),
    /// it could hang.
    @Test("a-fluidsynth renders from a session at block sizes 64, 256, 1024 and 4096", arguments: [64, 256, 1024, 4096])
    func fluidsynthAtEveryBlockSize(_ blockSize: Int) throws {
        let song = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sessions/audio/song.mid").standardized.path
        let session = temporaryPath("a-fluidsynth-\(blockSize).yaml"), output = session.replacingOccurrences(of: ".yaml", with: ".wav")
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: \(blockSize) }
            nodes:
              song: { unit: midi-player, file: \(song) }
              synth: { lv2: "urn:ardour:a-fluidsynth" }
              out: { unit: output, channels: 2 }
            connections: [song -> synth -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let result = try trellis(["render", session, "-o", output, "--duration", "1"])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        #expect(try floats(output).count == 2 * 48_000)
    }

    @Test("a stereo file through a mono plugin gives, channel by channel, what lv2apply gives on each channel alone")
    func stereoThroughMonoPlugin() throws {
        let uri = "http://plugin.org.uk/swh-plugins/dj_eq_mono"
        let source = temporaryPath("stereo.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "float", source, "synth", "0.5", "sine", "220", "sine", "3000"]) == 0)
        let ours = temporaryPath("trellis.wav")
        let result = try trellis(["chain", source, "!", "lv2:\(uri)", "lo=-6", "mid=3", "hi=-2", "!", ours])
        #expect(result.status == 0, "\(result.stderr)")
        let interleaved = try floats(ours)
        #expect(interleaved.count == 48_000)
        for channel in 0..<2 {
            let alone = temporaryPath("channel\(channel).wav"), theirs = temporaryPath("lv2apply\(channel).wav")
            #expect(try runTool("/usr/bin/sox", [source, alone, "remix", "\(channel + 1)"]) == 0)
            #expect(try runTool("/usr/bin/lv2apply", ["-i", alone, "-o", theirs, "-c", "lo", "-6", "-c", "mid", "3", "-c", "hi", "-2", uri]) == 0)
            let expected = try floats(theirs)
            let mine = stride(from: channel, to: interleaved.count, by: 2).map { interleaved[$0] }
            #expect(mine.count == expected.count)
            let difference = zip(mine, expected).map { abs($0 - $1) }.max() ?? 1
            #expect(difference < 1e-6, "channel \(channel): largest difference \(difference)")
        }
    }
}

@Suite("trellis chain as a session")
struct ChainSessionTests {
    @Test("--save writes a session that renders what the chain rendered")
    func savedChainRendersTheSame() throws {
        let source = temporaryPath("in.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "float", source, "synth", "0.5", "pinknoise", "vol", "0.5"]) == 0)
        let session = temporaryPath("chain.yaml"), chained = temporaryPath("chained.wav"), rendered = temporaryPath("rendered.wav")
        let result = try trellis(["chain", "--save", session, source, "!", "eq", "band0.type=lowshelf", "band0.freq=120", "band0.gain=3", "!", "gain", "gain=-6", "!", chained])
        #expect(result.status == 0, "\(result.stderr)")
        let first = try floats(chained)
        #expect(try trellis(["validate", session]).status == 0)
        let render = try trellis(["render", session, "-o", rendered])
        #expect(render.status == 0, "\(render.stderr)")
        let second = try floats(rendered)
        #expect(first.count == second.count && first.count == 48_000)
        #expect(zip(first, second).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test("a chain with jack at its end runs live on a private server and stops cleanly", .liveAudio)
    func liveChainRuns() throws {
        let server = "trellis-cli-\(getpid())"
        let result = try trellis(["chain", "--start-server", "--server", server, "--duration", "1", "tone", "freq=440", "!", "gain", "gain=-6", "!", "jack"])
        #expect(result.status == 0, "\(result.stderr)")
    }
    @Test("a chain from a MIDI port through a MIDI processor to an instrument connects MIDI where MIDI flows, and saves so",
          .liveAudio)
    func midiChainConnectsByKind() throws {
        let server = "trellis-cli-midi-\(getpid())"
        let session = temporaryPath("midi-chain.yaml")
        let result = try trellis([
            "chain", "--save", session, "--start-server", "--server", server, "--duration", "0.5",
            "midi", "!", "lv2:http://lv2plug.in/plugins/eg-fifths", "!", "lv2:http://drobilla.net/plugins/mda/EPiano", "!", "jack",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: session, encoding: .utf8)
        #expect(text.contains("midi-inputs: [midi_in]"), "\(text)")
        #expect(text.contains("- midi_in -> stage1 -> stage2\n"), "written as one chain: \(text)")
        let validated = try trellis(["validate", session])
        #expect(validated.stdout.contains("2 MIDI connections"), "midi_in -> fifths and fifths -> piano: \(validated.stdout)")
        #expect(validated.stdout.contains("1 connection,"), "the piano's audio to the output: \(validated.stdout)")
    }
}

@Suite("Warnings from the audio thread")
struct RenderWarningTests {
    static let const = "http://plugin.org.uk/swh-plugins/const"
    static let amp = "http://lv2plug.in/plugins/eg-amp"

    @Test("chain names the node whose plugin produced NaN, says it was silenced, and counts the warning")
    func chainReportsNonFiniteNode() throws {
        // swh's const outputs NaN when it runs one frame at a time.
        let source = temporaryPath("in.wav"), output = temporaryPath("out.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", source, "synth", "0.25", "sine", "440"]) == 0)
        let result = try trellis(["chain", "--block-size", "1", source, "!", "lv2:\(Self.const)", "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: node lv2-const1 (lv2:\(Self.const)) produced non-finite samples from 0.00 s; silenced\n"), "\(result.stderr)")
        #expect(result.stderr.contains("12000 frames (0.25 s), 1 warning\n"), "\(result.stderr)")
        #expect(try floats(output).allSatisfy { $0 == 0 })
    }

    @Test("chain counts no warnings when every node's output is finite")
    func chainWithoutWarnings() throws {
        let output = temporaryPath("out.wav")
        let result = try trellis(["chain", "--duration", "0.1", "tone", "!", "lv2:\(Self.amp)", "gain=-6", "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("warning:"), "\(result.stderr)")
        #expect(result.stderr.contains("(0.10 s), 0 warnings\n"), "\(result.stderr)")
    }

    @Test("render names the session's node that produced NaN and the time of the cycle it was silenced from")
    func renderReportsNonFiniteNode() throws {
        let folder = URL(fileURLWithPath: temporaryPath("x")).deletingLastPathComponent().path
        // NaN from frame 24576, the first frame of the seventh 4096-frame render slice.
        try FloatWAV.writeNaN(from: 24_576, frames: 48_000, to: folder + "/nan.wav")
        let session = folder + "/session.yaml"
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              src: { unit: player, file: nan.wav }
              fx1: { lv2: \(Self.amp) }
              out: { unit: output, channels: 1 }
            connections: [src -> fx1, fx1 -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let result = try trellis(["render", session, "-o", folder + "/out.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        // The player is where the NaN enters the graph: it is silenced and reset there.
        #expect(result.stderr.contains("warning: node src (player) produced non-finite samples from 0.51 s; silenced and reset; it plays again once its output is finite\n"), "\(result.stderr)")
        #expect(result.stderr.contains(", 1 warning\n"), "\(result.stderr)")
        let rendered = try floats(folder + "/out.wav")
        #expect(rendered.count == 48_000 && rendered.allSatisfy(\.isFinite))
    }
}

extension ChainLV2Tests {
    /// Tests/Tools/lv2-reference.c, compiled once against lilv.
    static let referenceHost: Result<String, Error> = Result {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Tools/lv2-reference.c").standardized.path
        let host = temporaryPath("lv2-reference")
        let flags = String(decoding: try output(of: "/usr/bin/pkg-config", ["--cflags", "--libs", "lilv-0"]), as: UTF8.self)
            .split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        guard try runTool("/usr/bin/cc", ["-O2", "-o", host, source] + flags) == 0 else { throw TestToolError(message: "cc could not build \(source)") }
        return host
    }

    /// lv2apply refuses plugins with an atom port, so a small lilv host written for the
    /// tests (Tests/Tools/lv2-reference.c) is the reference: it runs the plugin only
    /// on the input, at the block size Trellis renders in.
    @Test("a plugin with a latency port and a MIDI port (x42 fat1, three variants) renders as a reference lilv host renders it without running it first",
          arguments: ["http://gareus.org/oss/lv2/fat1", "http://gareus.org/oss/lv2/fat1#microtonal", "http://gareus.org/oss/lv2/fat1#scales"])
    func matchesReferenceHost(uri: String) throws {
        let host = try Self.referenceHost.get()
        let source = temporaryPath("in.wav"), ours = temporaryPath("trellis.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "float", source, "synth", "0.5", "sine", "300", "vol", "0.5"]) == 0)
        let result = try trellis(["chain", source, "!", "lv2:\(uri)", "!", ours])
        #expect(result.status == 0, "\(result.stderr)")
        let raw = temporaryPath("in.f32"), theirs = temporaryPath("reference.f32")
        #expect(try runTool("/usr/bin/sox", [source, "-t", "f32", raw]) == 0)
        #expect(try runTool("/bin/sh", ["-c", "\"$0\" \"$1\" 4096 < \"$2\" > \"$3\"", host, uri, raw, theirs]) == 0)
        let reference = try Data(contentsOf: URL(fileURLWithPath: theirs)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let mine = try floats(ours)
        #expect(mine.count == reference.count && mine.count == 24_000)
        let difference = zip(mine, reference).map { abs($0 - $1) }.max() ?? 1
        #expect(difference < 1e-6, "largest difference \(difference)")
    }
}

struct TestToolError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
