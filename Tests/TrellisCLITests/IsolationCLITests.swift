import Foundation
import Testing
import TrellisTestSupport

@Suite("Plugins in processes of their own, from the command line")
struct IsolationCLITests {
    private var sessions: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sessions").standardized.path
    }

    /// `text` with every plugin in a process of its own (the session-wide default).
    private func isolated(_ text: String) -> String {
        text.replacingOccurrences(of: "version: 1\n", with: "version: 1\nisolate: true\n")
    }

    /// Renders session text (written beside the repository's sessions, so its relative
    /// files resolve) to a new file; returns the file and the command's stderr.
    private func render(_ text: String, named name: String, seconds: String = "2", environment: [String: String] = [:]) throws -> (file: String, status: Int32, stderr: String) {
        let session = sessions + "/.isolation-\(UUID().uuidString)-\(name).yaml"
        try text.write(toFile: session, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: session) }
        let output = temporaryPath(name + ".wav")
        let result = try trellis(["render", session, "-o", output, "--duration", seconds, "--sample-type", "float32"], environment: environment)
        return (output, result.status, result.stderr)
    }

    @Test("sessions of LV2 effects and instruments render bit for bit with every plugin in its own process")
    func isolatedSessionsAreBitIdentical() throws {
        for name in ["lv2-chain.yaml", "midi-keys.yaml", "song.yaml"] {
            let text = try String(contentsOfFile: sessions + "/" + name, encoding: .utf8)
            let local = try render(text, named: name)
            let bridged = try render(isolated(text), named: name + "-isolated")
            #expect(local.status == 0 && bridged.status == 0, "\(name): \(local.stderr) \(bridged.stderr)")
            #expect(FileManager.default.contentsEqual(atPath: local.file, andPath: bridged.file), "\(name): the isolated render differs")
            #expect(bridged.stderr.contains(" 0 warnings"), "\(name): \(bridged.stderr)")
        }
        // The bridge really runs: with a program that is not Trellis as the bridge, the isolated session cannot load.
        let text = try String(contentsOfFile: sessions + "/lv2-chain.yaml", encoding: .utf8)
        let refused = try render(isolated(text), named: "refused", environment: ["TRELLIS_BRIDGE_EXECUTABLE": "/bin/false"])
        #expect(refused.status != 0 && refused.stderr.contains("in its own process"), "\(refused.stderr)")
    }

    @Test("eg-sampler loading its sample through the worker renders bit for bit in its own process")
    func workerPluginIsBitIdentical() throws {
        let sample = temporaryPath("click.wav")
        try FileManager.default.copyItem(atPath: "/usr/lib/lv2/eg-sampler.lv2/click.wav", toPath: sample)
        let text = """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              song: { unit: midi-player, file: audio/song.mid }
              sampler:
                lv2: http://lv2plug.in/plugins/eg-sampler
                state: |
                  @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
                  @prefix pset: <http://lv2plug.in/ns/ext/presets#> .
                  @prefix state: <http://lv2plug.in/ns/ext/state#> .
                  <urn:trellis:state> a pset:Preset ;
                    lv2:appliesTo <http://lv2plug.in/plugins/eg-sampler> ;
                    state:state [ <http://lv2plug.in/plugins/eg-sampler#sample> <file://\(sample)> ] .
              out: { unit: output, channels: 1 }
            connections:
              - song -> sampler -> out

            """
        let local = try render(text, named: "sampler", seconds: "3")
        let bridged = try render(isolated(text), named: "sampler-isolated", seconds: "3")
        #expect(local.status == 0 && bridged.status == 0, "\(local.stderr) \(bridged.stderr)")
        #expect(try floats(local.file).contains { abs($0) > 0.1 }, "the sample plays")
        #expect(FileManager.default.contentsEqual(atPath: local.file, andPath: bridged.file))
    }

    /// Eight tones, each through an isolated eg-amp or (branch 8, when `faulty`) the
    /// fixture made to fail from its first cycle, mixed.
    private func eightBranches(faulty: String?) -> String {
        var nodes = "", connections = ""
        for branch in 1...8 {
            nodes += "  tone\(branch): { unit: tone, channels: 1, parameters: { freq: \(200 * branch) } }\n"
            if branch == 8 {
                guard let faulty else { continue }
                nodes += "  fx8: { lv2: \"urn:trellis:fixtures:\(faulty)\", isolate: true, parameters: { trigger: 1 } }\n"
            } else {
                nodes += "  fx\(branch): { lv2: http://lv2plug.in/plugins/eg-amp, isolate: true, parameters: { gain: -\(branch) } }\n"
            }
            connections += "  - tone\(branch) -> fx\(branch)\n  - fx\(branch) -> mix.\(branch - 1)\n"
        }
        return """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
            \(nodes)  mix: { unit: mixer, inputs: 8, input-channels: 1 }
              out: { unit: output, channels: 2 }
            connections:
            \(connections)  - mix -> out

            """
    }

    @Test("offline, a plugin that segfaults, aborts or hangs is silenced and named in the summary; the other seven branches play on bit for bit",
          arguments: [("segfaults", "SIGSEGV"), ("aborts", "SIGABRT"), ("hangs", "missed its deadline")])
    func faultsAreContainedOffline(fixture: String, cause: String) throws {
        let path = "LV2_PATH"
        let search = try BridgeSupport.faultyFolder() + ":" + (ProcessInfo.processInfo.environment[path] ?? "/usr/lib/lv2")
        let expected = try render(eightBranches(faulty: nil), named: "seven", environment: [path: search])
        let faulted = try render(eightBranches(faulty: fixture), named: fixture, environment: [path: search])
        #expect(expected.status == 0 && faulted.status == 0, "\(expected.stderr) \(faulted.stderr)")
        #expect(faulted.stderr.contains("node fx8") && faulted.stderr.contains(cause), "\(faulted.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: expected.file, andPath: faulted.file))
    }

    @Test("offline, a plugin that starts to hang a second in is named with the time in the summary and its JSON")
    func lateHangIsNamedWithItsTime() throws {
        let path = "LV2_PATH"
        let search = try BridgeSupport.faultyFolder() + ":" + (ProcessInfo.processInfo.environment[path] ?? "/usr/lib/lv2")
        let text = """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone1: { unit: tone, channels: 1, parameters: { freq: 200, amp: 0.4 } }
              fx1: { lv2: http://lv2plug.in/plugins/eg-amp, isolate: true }
              tone2: { unit: tone, channels: 1, parameters: { freq: 300, amp: 0.4 } }
              fx2: { lv2: "urn:trellis:fixtures:hangs", isolate: true, automation: { trigger: [0s 0, 0.999s 0, 1s 1] } }
              mix: { unit: mixer, inputs: 2, input-channels: 1 }
              out: { unit: output, channels: 2 }
            connections: [tone1 -> fx1, fx1 -> mix.0, tone2 -> fx2, fx2 -> mix.1, mix -> out]

            """
        let session = sessions + "/.isolation-\(UUID().uuidString)-late-hang.yaml"
        try text.write(toFile: session, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: session) }
        let output = temporaryPath("late-hang.wav")
        let result = try trellis(["render", session, "-o", output, "--duration", "2", "--json"], environment: [path: search])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("node fx2 (lv2:urn:trellis:fixtures:hangs) failed at 0.9") && result.stderr.contains("missed its deadline"),
                "\(result.stderr)")
        #expect(result.stderr.contains(", 1 warning"), "\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let notice = (summary?["notices"] as? [[String: Any]])?.first
        #expect(notice?["node"] as? String == "fx2" && notice?["kind"] as? String == "unitFailed", "\(result.stdout)")
        // The cycle the plugin hung in: the trigger rises at 1 s, and the tone stops there.
        let seconds = notice?["seconds"] as? Double ?? -1
        #expect(seconds > 0.9 && seconds <= 1.0, "\(seconds)")
        // Left channel of the stereo mix: two tones' peak before, one tone's after.
        let left = try floats(output).enumerated().filter { $0.offset % 2 == 0 }.map { abs($0.element) }
        let before = left[Int((seconds - 0.1) * 48000)..<Int((seconds - 0.02) * 48000)].max() ?? 0
        let after = left[Int((seconds + 0.05) * 48000)..<Int((seconds + 0.5) * 48000)].max() ?? 0
        #expect(after < 0.75 * before && after > 0.3 * before, "peak \(before) before, \(after) after: only the healthy branch plays on")
    }

    @Test("units lists without probing, and says how many plugins wait for their probe")
    func listingDoesNotProbe() throws {
        let environment = ["LV2_PATH": try BridgeSupport.faultyFolder(), "XDG_CACHE_HOME": temporaryPath("listing-cache")]
        let listed = try trellis(["units", "--origin", "lv2"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        // The crashing plugin is not marked yet: no probe ran.
        let line = listed.stdout.split(separator: "\n").first { $0.contains("<urn:trellis:fixtures:crashes-on-instantiate>") }
        #expect(line != nil && line?.contains("cannot load") == false, "\(line ?? "not listed")")
        #expect(listed.stderr.contains("6 of these plugins are not probed yet") && listed.stderr.contains("trellis units --check"), "\(listed.stderr)")
        let checked = try trellis(["units", "--check", "--origin", "lv2"], environment: environment)
        #expect(!checked.stderr.contains("not probed yet"), "\(checked.stderr)")
    }

    @Test("a plugin is marked only when its probe fails twice, with what happened and when; units --recheck probes a stale mark again")
    func probeMarksRepeatedFailures() throws {
        let folder = try BridgeSupport.faultyFolder()
        let cache = temporaryPath("recheck-cache")
        let once = temporaryPath("recheck-once")
        try? FileManager.default.removeItem(atPath: once)
        func line(_ listing: String, _ uri: String) -> String {
            String(listing.split(separator: "\n").first { $0.contains("<\(uri)>") } ?? "not listed")
        }
        // Where crashes-once cannot leave its mark it crashes at every try: marked.
        var environment = ["LV2_PATH": folder, "XDG_CACHE_HOME": cache, "TRELLIS_FIXTURE_ONCE": "/nonexistent/folder/once"]
        var result = try trellis(["units", "--check", "--origin", "lv2"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let always = line(result.stdout, "urn:trellis:fixtures:crashes-on-instantiate")
        #expect(always.contains("[cannot load: crashes when instantiated: it was killed by signal 11 (SIGSEGV") && always.contains("in 2 tries of 2 (checked 20"), "\(always)")
        #expect(line(result.stdout, "urn:trellis:fixtures:crashes-once").contains("in 2 tries of 2"), "\(result.stdout)")
        // Now it would crash once only, but the mark stays (nothing in the bundle changed) ...
        environment["TRELLIS_FIXTURE_ONCE"] = once
        result = try trellis(["units", "--check", "--origin", "lv2"], environment: environment)
        #expect(line(result.stdout, "urn:trellis:fixtures:crashes-once").contains("cannot load"), "\(result.stdout)")
        // ... until --recheck: its first try crashes, its second works, and it is usable.
        result = try trellis(["units", "--recheck", "urn:trellis:fixtures:crashes-once"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: once), "the probe's first try crashed")
        let usable = line(result.stdout, "urn:trellis:fixtures:crashes-once")
        #expect(usable != "not listed" && !usable.contains("cannot load"), "\(usable)")
        #expect(line(result.stdout, "urn:trellis:fixtures:crashes-on-instantiate").contains("cannot load"), "other marks stay")
        #expect(try trellis(["units", "plugin"], environment: environment).status != 0, "plugins are named only with --recheck")
    }

    @Test("trellis units --check lists a plugin that segfaults when instantiated as unusable, exits 0, and remembers it")
    func discoveryContainsInstantiationCrash() throws {
        let search = try BridgeSupport.faultyFolder() + ":" + (ProcessInfo.processInfo.environment["LV2_PATH"] ?? "/usr/lib/lv2")
        let cache = temporaryPath("cache")
        let environment = ["LV2_PATH": search, "XDG_CACHE_HOME": cache]
        for run in ["scanning", "from the cache"] {
            let result = try trellis(["units", "--check"], environment: environment)
            #expect(result.status == 0, "\(run): \(result.stderr)")
            let line = result.stdout.split(separator: "\n").first { $0.contains("<urn:trellis:fixtures:crashes-on-instantiate>") }
            #expect(line?.contains("[cannot load: crashes when instantiated: it was killed by signal 11 (SIGSEGV") == true, "\(run): \(line ?? "not listed")")
            let working = result.stdout.split(separator: "\n").first { $0.contains("<urn:trellis:fixtures:segfaults>") }
            #expect(working != nil && working?.contains("cannot load") == false, "\(run): \(working ?? "not listed")")
        }
        // A session naming it fails to load with the reason, instead of crashing.
        let session = """
            version: 1
            nodes:
              tone: { unit: tone, channels: 1 }
              bad: { lv2: "urn:trellis:fixtures:crashes-on-instantiate" }
              out: { unit: output, channels: 1 }
            connections:
              - tone -> bad -> out

            """
        let refused = try render(session, named: "crashes-on-instantiate", environment: environment)
        #expect(refused.status == 1 && refused.stderr.contains("node bad") && refused.stderr.contains("discovery found it crashes when instantiated"), "\(refused.stderr)")
    }
}
