import Foundation
import Testing
import TrellisCore
import TrellisPlugins
import TrellisTestSupport

/// Runs an outside program with `LV2_PATH` set to Trellis' bundle, killed after two
/// minutes; its status and output.
private func lv2Tool(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["-s", "KILL", "120", tool] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(["LV2_PATH": try ExportedBundle.folder()]) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

/// Settings away from the defaults, by parameter identifier, for each kind of plugin.
private func settings(for plugin: ExportedPlugin) -> [String: Float] {
    switch plugin.symbol.split(separator: "-").first.map(String.init) ?? "" {
    case "gain": ["gain": -6.5]
    case "eq4", "eq8": ["gain": -2, "band0.type": 4, "band0.freq": 120, "band1.gain": 6, "band1.freq": 900, "band1.q": 2, "band3.gain": -4]
    case "geq10": ["band2.gain": 6, "band7.gain": -8]
    case "geq31": ["band5.gain": 4, "band20.gain": -6, "band30.gain": 3]
    case "ipod": ["preset": 10]
    case "limiter": ["pregain": 12, "release": 50, "attack": 2]
    case "delay": ["time": 0.125, "mix": 40, "feedback": 30, "lowpass": 5000]
    case "reverb": ["decayTime": 1.5, "damping": 30, "size": 60, "preDelay": 0.01, "wetDryMix": 40]
    case "distortion": ["drive": 70, "curve": 2, "tone": 30, "preGain": 0, "wetDryMix": 80]
    case "compressor": ["threshold": -30, "ratio": 4, "kneeWidth": 6, "attackTime": 0.005, "releaseTime": 0.1, "makeupGain": 6]
    case "mixer": ["volume": 0.8, "in0.pan": -0.5, "in1.volume": 0.5, "in1.pan": 0.7]
    default: ["in0.azimuth": 60, "in0.distance": 2, "reference": 1.5]
    }
}

/// The built-in unit's short name, for `trellis chain`.
private func builtIn(_ plugin: ExportedPlugin) -> String {
    switch plugin.symbol.split(separator: "-").first.map(String.init) ?? "" {
    case "eq4", "eq8": "eq"
    case "geq10", "geq31": "graphic-eq"
    case "ipod": "ipod-eq"
    default: String(plugin.symbol.split(separator: "-").first!)
    }
}

/// The effects whose output does not depend on the host's block size (a pitch shifter's
/// does: its own tests follow).
private let effects = ExportedPlugins.all.filter { plugin in
    !["mixer", "panner3d", "timepitch", "sampler"].contains { plugin.symbol.hasPrefix($0) }
}

/// 2 s of noise at half scale, as float, with `channels` channels.
private func noise(channels: Int) throws -> String {
    let path = temporaryPath("noise\(channels).wav")
    _ = try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "\(channels)", "-b", "32", "-e", "float", path, "synth", "2", "whitenoise", "vol", "0.5"])
    return path
}

/// The largest difference between two files' samples; infinity when their lengths differ.
/// Hosts that run other block sizes than Trellis may differ by a float's last bit now and
/// then: the EQ kernels enter each call from their direct form I history (lv2apply runs a
/// frame at a time: about 2 samples in 100,000 differ by 6e-8). Within 1e-6 is the bar.
private func difference(_ a: String, _ b: String) throws -> Float {
    let x = try floats(a), y = try floats(b)
    guard x.count == y.count, !x.isEmpty else { return .infinity }
    return zip(x, y).map { abs($0 - $1) }.max() ?? 0
}

/// `URI,v1,v2,...`: ecasound sets control ports by position, outputs included.
private func ecasoundArguments(_ uri: String, _ ports: [ExportedPort], _ values: [String: Float]) -> String {
    let positional = ports.compactMap { port -> String? in
        switch port.role {
        case .controlInput: "\(values[port.parameter!.identifier] ?? port.parameter!.defaultValue)"
        case .controlOutput: "0"
        default: nil
        }
    }
    return ([uri] + positional).joined(separator: ",")
}

@Suite("Trellis' units as LV2 plugins")
struct ExportedPluginTests {
    @Test("the bundle validates against the LV2 schemas, and lv2ls lists every plugin")
    func bundleValidates() throws {
        let bundle = try ExportedBundle.folder() + "/trellis.lv2"
        let turtle = try FileManager.default.contentsOfDirectory(atPath: bundle).filter { $0.hasSuffix(".ttl") }.map { bundle + "/" + $0 }
        let validation = try lv2Tool("lv2_validate", turtle)
        #expect(validation.status == 0 && validation.output.contains("Found 0 errors"), "\(validation.output.suffix(2000))")
        let listed = try lv2Tool("lv2ls", [])
        for plugin in ExportedPlugins.all { #expect(listed.output.contains(plugin.uri + "\n"), "\(plugin.uri) not listed") }
    }

    @Test("the library needs nothing from Swift and exports only lv2_descriptor")
    func libraryStandsAlone() throws {
        let library = try ExportedBundle.folder() + "/trellis.lv2/trellis.so"
        let needs = try lv2Tool("ldd", [library])
        #expect(needs.status == 0 && !needs.output.isEmpty)
        #expect(!needs.output.lowercased().contains("swift") && !needs.output.contains("Foundation"), "\(needs.output)")
        let symbols = try lv2Tool("readelf", ["--dyn-syms", "-W", library])
        let exported = symbols.output.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, fields[4] == "GLOBAL" || fields[4] == "WEAK", fields[6] != "UND" else { return nil }
            return String(fields[7])
        }
        #expect(exported == ["lv2_descriptor"])
    }

    @Test("lv2info shows each plugin's ports: audio, controls with their ranges, and the limiter's latency", arguments: ExportedPlugins.all.map(\.symbol))
    func portsAsLV2InfoShowsThem(_ symbol: String) throws {
        let plugin = try #require(ExportedPlugins.all.first { $0.symbol == symbol })
        let info = try lv2Tool("lv2info", [plugin.uri])
        #expect(info.status == 0)
        let ports = plugin.ports(of: try plugin.makeUnit(sampleRate: 48_000, maximumFrames: 256))
        let symbols = info.output.split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == "Symbol" else { return nil }
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
        #expect(symbols == ports.map(\.symbol))
        for port in ports {
            guard let parameter = port.parameter else { continue }
            let block = info.output.components(separatedBy: "Symbol:      \(port.symbol)\n").last ?? ""
            #expect(block.contains(String(format: "Minimum:     %f", parameter.range.lowerBound)), "\(port.symbol) minimum")
            #expect(block.contains(String(format: "Maximum:     %f", parameter.range.upperBound)), "\(port.symbol) maximum")
        }
        #expect(info.output.contains("Has latency:       yes") == ["limiter", "distortion", "timepitch"].contains { symbol.hasPrefix($0) })
    }

    @Test("the iPod EQ's curves are presets any host lists")
    func presetsAreListed() throws {
        let info = try lv2Tool("lv2info", [ExportedPlugin.uriBase + "ipod-eq-stereo"])
        let lines = Set(info.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let plugin = try #require(ExportedPlugins.plugin(uri: ExportedPlugin.uriBase + "ipod-eq-stereo"))
        #expect(plugin.presets.count == 22)
        for preset in plugin.presets { #expect(lines.contains(preset.name), "\(preset.name)") }
    }

    @Test("lv2apply and ecasound with each effect equal trellis chain with the built-in unit and the same settings", arguments: effects.map(\.symbol))
    func hostsMatchTheBuiltIn(_ symbol: String) throws {
        let plugin = try #require(effects.first { $0.symbol == symbol })
        let input = try noise(channels: symbol.hasSuffix("mono") ? 1 : 2)
        let values = settings(for: plugin)
        let ports = plugin.ports(of: try plugin.makeUnit(sampleRate: 48_000, maximumFrames: 256))

        let chained = temporaryPath("chain.wav")
        // A chain's `preset=` names a factory preset: the curve whose index the plugin's port takes.
        let words = (plugin.fixed.merging(values) { $1 }).sorted { $0.key < $1.key }.map { key, value in
            key == "preset" ? "preset=" + (plugin.presets.first { $0.values["preset"] == value }?.name ?? "") : "\(key)=\(value)"
        }
        let chain = try trellis(["chain", input, "!", builtIn(plugin)] + words + ["!", chained])
        #expect(chain.status == 0, "\(chain.stderr)")

        let applied = temporaryPath("lv2apply.wav")
        var arguments = ["-i", input, "-o", applied]
        for (identifier, value) in values.sorted(by: { $0.key < $1.key }) {
            let port = try #require(ports.first { $0.parameter?.identifier == identifier })
            arguments += ["-c", port.symbol, "\(value)"]
        }
        let lv2apply = try lv2Tool("lv2apply", arguments + [plugin.uri])
        #expect(lv2apply.status == 0, "\(lv2apply.output)")
        #expect(try difference(applied, chained) <= 1e-6, "lv2apply")

        let echoed = temporaryPath("ecasound.wav")
        let channels = symbol.hasSuffix("mono") ? 1 : 2
        let ecasound = try lv2Tool("ecasound", ["-q", "-f:f32,\(channels),48000", "-i", input, "-o", echoed,
                                                 "-elv2:" + ecasoundArguments(plugin.uri, ports, values)])
        #expect(ecasound.status == 0, "\(ecasound.output)")
        #expect(try difference(echoed, chained) <= 1e-6, "ecasound")
    }

    @Test("lv2apply and ecasound with each mixer and 3D panner equal trellis render of the built-in unit fed by players", arguments: ExportedPlugins.all.filter { $0.symbol.hasPrefix("mixer") || $0.symbol.hasPrefix("panner3d") }.map(\.symbol))
    func mixersMatchTheBuiltIn(_ symbol: String) throws {
        let plugin = try #require(ExportedPlugins.all.first { $0.symbol == symbol })
        let isMixer = symbol.hasPrefix("mixer")
        let inputs = Int(symbol.split(separator: "-").last!)!
        let files = try (0..<inputs).map { _ in try noise(channels: isMixer ? 2 : 1) }
        let values = settings(for: plugin).filter { key, _ in !key.hasPrefix("in") || Int(key.dropFirst(2).prefix { $0.isNumber })! < inputs }

        let session = temporaryPath("mix.yaml")
        let parameters = values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        let unit = isMixer ? "{ unit: mixer, inputs: \(inputs), parameters: { \(parameters) } }"
            : "{ unit: mixer3d, inputs: \(inputs), input-channels: 1, output-channels: 2, parameters: { \(parameters) } }"
        var text = "version: 1\nnodes:\n  mix: \(unit)\n  out: { unit: output, channels: 2 }\n"
        for (index, file) in files.enumerated() { text += "  p\(index): { unit: player, file: \(file) }\n" }
        text += "connections:\n" + (0..<inputs).map { "  - p\($0) -> mix.\($0)\n" }.joined() + "  - mix -> out\n"
        try text.write(toFile: session, atomically: true, encoding: .utf8)
        let rendered = temporaryPath("render.wav")
        let render = try trellis(["render", session, "-o", rendered])
        #expect(render.status == 0, "\(render.stderr)")

        let merged = temporaryPath("merged.wav")
        #expect(try runTool("/usr/bin/sox", files.count == 1 ? [files[0], merged] : ["-M"] + files + [merged]) == 0)
        let ports = plugin.ports(of: try plugin.makeUnit(sampleRate: 48_000, maximumFrames: 256))
        let applied = temporaryPath("lv2apply.wav")
        var arguments = ["-i", merged, "-o", applied]
        for (identifier, value) in values.sorted(by: { $0.key < $1.key }) {
            let port = try #require(ports.first { $0.parameter?.identifier == identifier })
            arguments += ["-c", port.symbol, "\(value)"]
        }
        let lv2apply = try lv2Tool("lv2apply", arguments + [plugin.uri])
        #expect(lv2apply.status == 0, "\(lv2apply.output)")
        #expect(try difference(applied, rendered) <= 1e-6, "lv2apply")

        let echoed = temporaryPath("ecasound.wav")
        let ecasound = try lv2Tool("ecasound", ["-q", "-f:f32,\(files.count * (isMixer ? 2 : 1)),48000", "-i", merged,
                                                 "-f:f32,2,48000", "-o", echoed, "-elv2:" + ecasoundArguments(plugin.uri, ports, values)])
        #expect(ecasound.status == 0, "\(ecasound.output)")
        #expect(try difference(echoed, rendered) <= 1e-6, "ecasound")
    }

    @Test("lv2apply and ecasound shift 440 Hz to 880 Hz through the time-pitch plugin at +1200 cents, arriving after the latency it reports",
          arguments: ["timepitch-mono", "timepitch-stereo"])
    func pitchShiftsInOtherHosts(_ symbol: String) throws {
        let plugin = try #require(ExportedPlugins.all.first { $0.symbol == symbol })
        let channels = symbol.hasSuffix("mono") ? 1 : 2
        let tone = temporaryPath("tone.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "\(channels)", "-b", "32", "-e", "float", tone, "synth", "2", "sine", "440", "vol", "0.5"]) == 0)
        let latency = try plugin.makeUnit(sampleRate: 48_000, maximumFrames: ExportedPlugin.sliceFrames).latencyFrames
        #expect(latency > 0)
        let ports = plugin.ports(of: try plugin.makeUnit(sampleRate: 48_000, maximumFrames: 256))

        let applied = temporaryPath("lv2apply.wav"), echoed = temporaryPath("ecasound.wav")
        let lv2apply = try lv2Tool("lv2apply", ["-i", tone, "-o", applied, "-c", "pitch", "1200", plugin.uri])
        #expect(lv2apply.status == 0, "\(lv2apply.output)")
        let ecasound = try lv2Tool("ecasound", ["-q", "-f:f32,\(channels),48000", "-i", tone, "-o", echoed,
                                                 "-elv2:" + ecasoundArguments(plugin.uri, ports, ["pitch": 1200])])
        #expect(ecasound.status == 0, "\(ecasound.output)")
        for (host, file) in [("lv2apply", applied), ("ecasound", echoed)] {
            let samples = try floats(file)
            #expect(samples.count == 96_000 * channels, "\(host)")
            let left = stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
            let onset = try #require(left.firstIndex { abs($0) > 1e-4 }, "\(host): silent")
            #expect(abs(onset - latency) <= 64, "\(host): sound starts at \(onset), latency \(latency)")
            let hertz = peakHertz(left[(latency + 4_800)..<(latency + 52_800)], low: 400, high: 1_000)
            #expect(abs(hertz - 880) <= 0.5, "\(host): \(hertz) Hz")
        }
    }

    @Test("the sampler plugin, hosted by trellis, plays a MIDI file as the built-in sampler does, and takes a bank from its state")
    func samplerPluginPlaysLikeTheBuiltIn() throws {
        let folder = temporaryPath("sampler")
        try FileManager.default.createDirectory(atPath: folder + "/bank", withIntermediateDirectories: true)
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", folder + "/bank/A4.wav", "synth", "1", "sine", "440", "fade", "0", "1", "0.2"]) == 0)
        let song = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sessions/audio/song.mid").standardized.path
        func render(_ node: String) throws -> [Float] {
            let session = folder + "/session.yaml", output = folder + "/out.wav"
            try """
                version: 1
                defaults: { sample-rate: 48000, block-size: 256 }
                nodes:
                  song: { unit: midi-player, file: \(song) }
                  piano: \(node)
                  out: { unit: output, channels: 2 }
                connections:
                  - song -> piano -> out

                """.write(toFile: session, atomically: true, encoding: .utf8)
            let run = try trellis(["render", session, "-o", output, "--duration", "4"], environment: ["LV2_PATH": try ExportedBundle.folder()])
            #expect(run.status == 0, "\(run.stderr)")
            return try floats(output)
        }
        let plugin = try render("{ lv2: \(ExportedPlugin.uriBase)sampler }")
        let builtIn = try render("{ unit: sampler }")
        #expect(plugin.count == 4 * 48_000 * 2)
        #expect(plugin == builtIn, "General MIDI piano")
        #expect(plugin.contains { abs($0) > 0.05 })

        let fromState = try render("""
            { lv2: \(ExportedPlugin.uriBase)sampler, state: "<\(ExportedPlugin.uriBase)sampler#bank> <file://\(folder)/bank> ." }
            """)
        let bank = try render("{ unit: sampler, file: \(folder)/bank }")
        #expect(fromState == bank, "the note bank named in the state")
        #expect(fromState != builtIn)
    }
}
