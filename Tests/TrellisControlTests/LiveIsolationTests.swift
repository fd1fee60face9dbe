import Foundation
import Glibc
import Testing
import TrellisAudioFile
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    /// The healthy branches beside the fixture's (branch 8): three bridge processes and the
    /// fixture's keep a two-core machine busy enough without the suite's others beside.
    static let healthyBranches = 1...3

    /// Tones through isolated eg-amps (`healthyBranches`) and one, branch 8, through the
    /// isolated fault fixture `fixture` (not yet triggered), mixed.
    static func isolatedBranches(_ fixture: String) -> String {
        var nodes = "", connections = ""
        for branch in Array(healthyBranches) + [8] {
            nodes += "  tone\(branch): { unit: tone, channels: 1, parameters: { freq: \(200 * branch) } }\n"
            nodes += branch == 8
                ? "  fx8: { lv2: \"urn:trellis:fixtures:\(fixture)\", isolate: true }\n"
                : "  fx\(branch): { lv2: \(amp), isolate: true, parameters: { gain: -\(branch) } }\n"
            connections += "  - tone\(branch) -> fx\(branch)\n  - fx\(branch) -> mix.\(branch == 8 ? healthyBranches.count : branch - 1)\n"
        }
        return """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
            \(nodes)  mix: { unit: mixer, inputs: \(healthyBranches.count + 1), input-channels: 1 }
              out: { unit: output, channels: 2 }
            connections:
            \(connections)  - mix -> out

            """
    }

    /// Whether `output` is `input` times eg-amp's coefficient for `gain` dB, sample for
    /// sample, at some offset between the two taps (each starts at its own cycle):
    /// eg-amp multiplies by `powf(10, gain * 0.05)`, the same libm here.
    static func isAmplified(_ output: [Float], _ input: [Float], gain: Float) -> Bool {
        let coefficient = powf(10, gain * 0.05)
        guard output.count > 48_000, input.count > 48_000 else { return false }
        for offset in -8_192...8_192 {
            let start = max(0, -offset), end = min(output.count, input.count - offset)
            guard end - start > 24_000 else { continue }
            if (start..<end).allSatisfy({ output[$0] == input[$0 + offset] * coefficient }) { return true }
        }
        return false
    }

    /// Waits, up to 3 s, until a watcher has heard nothing for half a second: on a loaded
    /// machine the first cycles of new processes come late.
    static func settle(_ watcher: ControlClient) {
        let end = Date().addingTimeInterval(3)
        while Date() < end, (try? watcher.readLine(timeout: 0.5)) != nil {}
    }

    /// What one run of the fault scenario saw.
    struct FaultRun {
        var faultLine: String?
        /// The session's time when the trigger was sent (its cycles so far), in seconds.
        var triggerSeconds = 0.0
        var heardAfter: TimeInterval = .infinity
        var silencedPeak: Float?
        var quietBranches: [Int] = []
        var xruns = 0
        var restarted = ""
        var peakAfterRestart: Float?
        var inexactBranches: [Int] = []
        /// Warnings about the other branches: a loaded machine made them late.
        var disturbances: [String] = []

        /// The fixture's level before its trigger.
        var peakBefore: Float?

        /// The healthy branches a loaded machine made late (a late bridge cycle plays as on
        /// a fault): they are not judged bit for bit.
        var lateBranches: Set<Int> {
            Set(LiveControlTests.healthyBranches.filter { branch in disturbances.contains { $0.contains("node fx\(branch) ") } })
        }

        /// Whether the machine let the run be judged: at most the fault's one xrun, the
        /// fixture played before its trigger, and some healthy branch was never late.
        var undisturbed: Bool { xruns <= 1 && (peakBefore ?? -200) > -20 && lateBranches.count < LiveControlTests.healthyBranches.count }
    }

    /// Isolated branches; branch 8, `fixture`, is triggered while the others are
    /// recorded, and restarted.
    static func runFault(_ fixture: String) throws -> FaultRun {
        let search = try BridgeSupport.faultyFolder() + ":" + (ProcessInfo.processInfo.environment["LV2_PATH"] ?? "/usr/lib/lv2")
        let rig = try LiveRig(session: Self.isolatedBranches(fixture), environment: ["LV2_PATH": search])
        defer { rig.stop() }
        let watcher = try rig.client(), client = try rig.client()
        var run = FaultRun()
        #expect(try watcher.request("watch events=warning").hasPrefix("ok events=warning"))
        func listen(until deadline: Date) {
            // A line, or nil once none came before the deadline (readLine throws then).
            while Date() < deadline, let line = (try? watcher.readLine(timeout: max(0.001, deadline.timeIntervalSinceNow))) ?? nil {
                if line.hasPrefix("event warning node fx8 "), line.contains(" failed at ") {
                    run.faultLine = run.faultLine ?? line
                    return
                }
                if !line.hasPrefix("event warning node fx8 ") { run.disturbances.append(line) }
            }
        }
        Self.settle(watcher)
        // The other branches are recorded, before and after each plugin, through it all.
        for branch in Self.healthyBranches {
            #expect(try client.request("tap add tone\(branch).0 tone\(branch).wav").hasPrefix("ok"))
            #expect(try client.request("tap add fx\(branch).0 fx\(branch).wav").hasPrefix("ok"))
        }
        let recording = Date()
        run.peakBefore = level("peak", in: try Self.reading(client, "fx8"))
        let xruns = try Self.count("xruns", client)

        run.triggerSeconds = Double(try Self.count("cycles", client) * Self.count("period", client)) / 48_000
        #expect(try client.request("set fx8 trigger 1") == "ok 1")
        let triggered = Date()
        listen(until: triggered.addingTimeInterval(2))
        run.heardAfter = Date().timeIntervalSince(triggered)
        run.silencedPeak = level("peak", in: try Self.reading(client, "fx8"))
        for branch in Self.healthyBranches where (level("peak", in: try Self.reading(client, "fx\(branch)", settle: 0, window: 0.02)) ?? -200) <= -20 {
            run.quietBranches.append(branch)
        }
        run.xruns = try Self.count("xruns", client) - xruns

        #expect(try client.request("set fx8 trigger 0") == "ok 0")
        run.restarted = try client.request("restart fx8")
        run.peakAfterRestart = level("peak", in: try Self.reading(client, "fx8"))

        // Long enough to judge (`isAmplified` wants more than a second of each).
        let left = 1.5 - Date().timeIntervalSince(recording)
        if left > 0 { usleep(UInt32(left * 1_000_000)) }
        // The warnings of branches that were late so far, before they are judged.
        listen(until: Date().addingTimeInterval(0.2))
        for branch in Self.healthyBranches {
            #expect(try client.request("tap remove tone\(branch).0").hasPrefix("ok"))
            #expect(try client.request("tap remove fx\(branch).0").hasPrefix("ok"))
            let input = try AudioFileReader(path: rig.folder + "/tone\(branch).wav").readAll()[0]
            let output = try AudioFileReader(path: rig.folder + "/fx\(branch).wav").readAll()[0]
            if !run.lateBranches.contains(branch), !Self.isAmplified(output, input, gain: -Float(branch)) { run.inexactBranches.append(branch) }
        }
        listen(until: Date().addingTimeInterval(0.1))
        return run
    }

    @Test("live, a plugin that segfaults, aborts or hangs in its own process is silenced and named within 100 ms, and restart brings it back",
          arguments: [("segfaults", "SIGSEGV"), ("aborts", "SIGABRT"), ("hangs", "missed its deadline")])
    func isolatedFaultIsContainedLive(fixture: String, cause: String) throws {
        // A run the machine disturbed (another branch late, xruns beyond the fault's one)
        // is taken again.
        let run = try undisturbedRun({ try Self.runFault(fixture) }, disturbed: { !$0.undisturbed })
        #expect(try #require(run.peakBefore) > -20, "the fixture passes its tone before its trigger")
        let line = try #require(run.faultLine, "no fault was heard; other warnings: \(run.disturbances)")
        #expect(line.contains(cause), "\(line)")
        // The warning says when: the cycle the fixture faulted in, just after its trigger.
        let at = line.range(of: " failed at ").flatMap { Double(line[$0.upperBound...].prefix { $0 != " " }) } ?? -1
        #expect(at >= run.triggerSeconds - 1 && at <= run.triggerSeconds + 2, "\(line): triggered at \(run.triggerSeconds) s")
        #expect(run.heardAfter < 0.1, "the fault was heard \(Int(run.heardAfter * 1000)) ms after the trigger")
        #expect(try #require(run.silencedPeak) < -150, "silenced")
        #expect(run.quietBranches.isEmpty, "branches \(run.quietBranches) stopped playing")
        #expect(run.undisturbed, "every run disturbed: \(run.xruns) xruns, branches \(run.lateBranches.sorted()) late: \(run.disturbances)")
        #expect(run.restarted.hasPrefix("ok restarted (it had ") && run.restarted.contains(cause), "\(run.restarted)")
        #expect(try #require(run.peakAfterRestart) > -20, "plays again after restart")
        #expect(run.inexactBranches.isEmpty, "branches \(run.inexactBranches) (never late) are not their tone times their gain, bit for bit, throughout")
    }

    @Test("live, an isolated plugin with restart: auto starts again by itself after a crash, with its parameters as they are now")
    func isolatedPluginRestartsByItself() throws {
        let search = try BridgeSupport.faultyFolder() + ":" + (ProcessInfo.processInfo.environment["LV2_PATH"] ?? "/usr/lib/lv2")
        let session = """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone: { unit: tone, channels: 1 }
              fx: { lv2: "urn:trellis:fixtures:segfaults", isolate: yes, restart: auto }
              out: { unit: output, channels: 1 }
            connections:
              - tone -> fx -> out

            """
        let rig = try LiveRig(session: session, environment: ["LV2_PATH": search])
        defer { rig.stop() }
        let watcher = try rig.client(), client = try rig.client()
        #expect(try watcher.request("watch events=warning,log").hasPrefix("ok events="))
        #expect(try client.request("set fx trigger 1") == "ok 1")
        var heard: [String] = []
        func listen(until wanted: String) throws {
            let deadline = Date().addingTimeInterval(5)
            while !heard.contains(where: { $0.contains(wanted) }), Date() < deadline {
                if let line = try watcher.readLine(timeout: 0.5) { heard.append(line) }
            }
        }
        try listen(until: "SIGSEGV")
        // On a busy machine the cycle's deadline may pass before the crash is seen: the
        // warning then says so, and the restart's note names the signal.
        #expect(heard.contains { $0.hasPrefix("event warning node fx ") }, "\(heard)")
        #expect(heard.contains { $0.contains("node fx ") && $0.contains("SIGSEGV") }, "\(heard)")
        // Until the trigger is off, each restart (one a second at most) crashes again.
        #expect(try client.request("set fx trigger 0") == "ok 0")
        try listen(until: "restarted by itself")
        #expect(heard.contains { $0.contains("restarted by itself") }, "\(heard)")
        var peak: Float = -160
        let deadline = Date().addingTimeInterval(4)
        while peak < -20, Date() < deadline { peak = try #require(level("peak", in: try Self.reading(client, "fx"))) }
        #expect(peak > -20, "plays again by itself: \(heard)")
    }
}

extension LiveControlTests {
    /// Whether `a` and `b` hold the same samples, bit for bit, at some offset (each tap
    /// starts at its own cycle), over at least a second, not all silent.
    static func sameSamples(_ a: [Float], _ b: [Float]) -> Bool {
        guard a.count > 48_000, b.count > 48_000, a.contains(where: { $0 != 0 }) else { return false }
        for offset in -8_192...8_192 {
            let start = max(0, -offset), end = min(a.count, b.count - offset)
            guard end - start > 48_000 else { continue }
            if (start..<end).allSatisfy({ a[$0].bitPattern == b[$0 + offset].bitPattern }) { return true }
        }
        return false
    }

    @Test("live, mda Overdrive and eg-sampler (its sample loaded through the worker) in their own processes output what they output in Trellis', bit for bit")
    func isolatedEqualsLocalLive() throws {
        func branch(_ name: String, isolated: Bool) -> String {
            // The whole period as the deadline: fewer cycles late on a loaded machine.
            let isolate = isolated ? ", isolate: true, deadline: 1" : ""
            return """
                  tone\(name): { unit: tone, channels: 2, parameters: { waveform: saw, freq: 110, amp: 0.4 } }
                  drive\(name): { lv2: http://drobilla.net/plugins/mda/Overdrive\(isolate), parameters: { drive: 0.6, muffle: 0.4 } }
                  song\(name): { unit: midi-player, file: song.mid }
                  sampler\(name):
                    lv2: http://lv2plug.in/plugins/eg-sampler
                    isolate: \(isolated)\(isolated ? "\n    deadline: 1" : "")
                    state: |
                      @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
                      @prefix pset: <http://lv2plug.in/ns/ext/presets#> .
                      @prefix state: <http://lv2plug.in/ns/ext/state#> .
                      <urn:trellis:state> a pset:Preset ;
                        lv2:appliesTo <http://lv2plug.in/plugins/eg-sampler> ;
                        state:state [ <http://lv2plug.in/plugins/eg-sampler#sample> <file://SAMPLE> ] .

                """
        }
        let session = """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
            \(branch("A", isolated: false))\(branch("B", isolated: true))  mix: { unit: mixer, inputs: 4 }
              out: { unit: output, channels: 2 }
            connections:
              - toneA -> driveA -> mix.0
              - toneB -> driveB -> mix.1
              - songA -> samplerA
              - songB -> samplerB
              - { from: samplerA.0, to: mix.2, convert: true }
              - { from: samplerB.0, to: mix.3, convert: true }
              - mix -> out

            """
        let sessions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sessions").standardized.path
        let sample = NSTemporaryDirectory() + "trellis-click-\(UUID().uuidString).wav"
        try FileManager.default.copyItem(atPath: "/usr/lib/lv2/eg-sampler.lv2/click.wav", toPath: sample)
        defer { try? FileManager.default.removeItem(atPath: sample) }

        /// Records the four plugins' outputs; returns the pairs that differ, and the
        /// warnings heard meanwhile (a late cycle of an isolated plugin on a loaded machine).
        func record() throws -> (differing: [String], warnings: [String]) {
            let rig = try LiveRig(session: session.replacingOccurrences(of: "SAMPLE", with: sample)) { folder in
                try FileManager.default.copyItem(atPath: sessions + "/audio/song.mid", toPath: folder + "/song.mid")
            }
            defer { rig.stop() }
            let watcher = try rig.client(), client = try rig.client()
            #expect(try watcher.request("watch events=warning").hasPrefix("ok events=warning"))
            Self.settle(watcher)
            for node in ["driveA", "driveB", "samplerA", "samplerB"] {
                #expect(try client.request("tap add \(node).0 \(node).wav").hasPrefix("ok"))
            }
            #expect(try client.request("transport play").hasPrefix("ok"))
            usleep(3_000_000)
            for node in ["driveA", "driveB", "samplerA", "samplerB"] {
                #expect(try client.request("tap remove \(node).0").hasPrefix("ok"))
            }
            var warnings: [String] = []
            while let line = (try? watcher.readLine(timeout: 0.1)) ?? nil { warnings.append(line) }
            var differing: [String] = []
            for (local, isolated) in [("driveA", "driveB"), ("samplerA", "samplerB")] {
                let a = try AudioFileReader(path: rig.folder + "/\(local).wav").readAll()
                let b = try AudioFileReader(path: rig.folder + "/\(isolated).wav").readAll()
                if !(a.count == b.count && zip(a, b).allSatisfy { Self.sameSamples($0, $1) }) { differing.append("\(local) and \(isolated)") }
            }
            return (differing, warnings)
        }
        // A recording the machine disturbed (a late cycle) is taken again.
        let result = try undisturbedRun(record, disturbed: { !$0.warnings.isEmpty })
        #expect(result.warnings.isEmpty, "every recording disturbed: \(result.warnings)")
        #expect(result.differing.isEmpty, "\(result.differing) differ")
    }
}
