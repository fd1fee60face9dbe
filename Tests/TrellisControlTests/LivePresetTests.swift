import Foundation
import Testing
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    /// The tone session with HOME and XDG_CONFIG_HOME in `home`, so presets land there.
    static func presetRig(home: String, session: String = toneSession) throws -> LiveRig {
        try LiveRig(session: session, environment: ["HOME": home, "XDG_CONFIG_HOME": home + "/config"])
    }

    @Test("a built-in unit's preset is saved as a Trellis preset file, listed, loaded, and named when absent")
    func builtInPresetSave() throws {
        let home = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let rig = try Self.presetRig(home: home)
        defer { rig.stop() }
        let client = try rig.client()
        let none = try client.request("preset trim Quiet")
        #expect(none.hasPrefix("error UNKNOWN_PRESET") && none.contains("has no presets"), "\(none)")
        #expect(try client.request("set trim gain -12") == "ok -12")
        let saved = try client.request("preset save trim Quiet Night")
        let file = home + "/config/trellis/presets/aufx-gain-trls/Quiet_Night.yaml"
        #expect(saved == "ok \"Quiet Night\" \(file)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("preset: Quiet Night") && text.contains("unit: aufx:gain:trls") && text.contains("gain: -12"), "\(text)")
        #expect(try client.request("set trim gain 0") == "ok 0")
        #expect(try client.request("preset trim") == "ok \"Quiet Night\"")
        #expect(try client.request("preset trim quiet night") == "ok quiet night")
        #expect(try client.request("get trim gain") == "ok -12")
        let reading = try Self.reading(client, "trim")
        #expect(abs(try #require(level("peak", in: reading)) - (decibels(0.5) - 12)) < 0.05, "\(reading)")
        let absent = try client.request("preset trim Loud")
        #expect(absent == "error UNKNOWN_PRESET node trim: no preset Loud; its presets are \"Quiet Night\"", "\(absent)")
    }

    @Test("a preset file nested 10,000 deep is an error naming its line and column, live and in validate; the session and the other presets go on")
    func deepPresetIsAnError() throws {
        let home = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let folder = home + "/config/trellis/presets/aufx-gain-trls"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for path in [home + "/config", home + "/config/trellis", home + "/config/trellis/presets"] { chmod(path, 0o700) }
        let deep = "preset: Deep\nunit: aufx:gain:trls\nparameters: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        try deep.write(toFile: folder + "/deep.yaml", atomically: true, encoding: .utf8)
        try "preset: Quiet\nunit: aufx:gain:trls\nparameters:\n  gain: -12\n".write(toFile: folder + "/quiet.yaml", atomically: true, encoding: .utf8)
        let rig = try Self.presetRig(home: home)
        defer { rig.stop() }
        let client = try rig.client()
        let refused = try client.request("preset trim Deep")
        #expect(refused.hasPrefix("error UNKNOWN_PRESET") && refused.contains(folder + "/deep.yaml:3:")
                && refused.contains("nested deeper than 16 levels"), "\(refused)")
        #expect(try client.request("preset trim") == "ok Quiet")
        #expect(try client.request("preset trim Quiet") == "ok Quiet")
        #expect(try client.request("get trim gain") == "ok -12")
        let session = home + "/deep.yaml"
        try toneSession.replacingOccurrences(of: "trim: { unit: gain, channels: 1 }", with: "trim: { unit: gain, channels: 1, preset: Deep }")
            .write(toFile: session, atomically: true, encoding: .utf8)
        let validated = try trellis(["validate", session], environment: ["HOME": home, "XDG_CONFIG_HOME": home + "/config"])
        #expect(validated.status != 0 && validated.stderr.contains(folder + "/deep.yaml:3:") && validated.stderr.contains("nested deeper"), "\(validated.stderr)")
    }

    @Test("an LV2 preset is saved in ~/.lv2 the way jalv writes it: lv2info lists it, and a new session loads it")
    func lv2PresetSave() throws {
        let home = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let session = """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone1: { unit: tone, channels: 2, parameters: { freq: 1000, amp: 0.5 } }
              flanger: { lv2: http://drobilla.net/plugins/mda/ThruZero }
              out: { unit: output, channels: 2 }
            connections:
              - tone1 -> flanger -> out
            """
        do {
            let rig = try Self.presetRig(home: home, session: session)
            defer { rig.stop() }
            let client = try rig.client()
            #expect(try client.request("set flanger depth 0.25") == "ok 0.25")
            let saved = try client.request("preset save flanger Slow Sweep")
            let file = home + "/.lv2/MDA_ThruZero_Slow_Sweep.preset.lv2/Slow_Sweep.ttl"
            #expect(saved == "ok \"Slow Sweep\" \(file)", "\(saved)")
            #expect(try client.request("preset flanger").contains("\"Slow Sweep\""))
            #expect(try client.request("set flanger depth 0.9") == "ok 0.9")
            #expect(try client.request("preset flanger Slow Sweep") == "ok Slow Sweep")
            #expect(try client.request("get flanger depth") == "ok 0.25")
            let shipped = try client.request("preset save flanger Chorus Doubler")
            #expect(shipped.hasPrefix("error") && shipped.contains("ships a preset of that name"), "\(shipped)")
        }
        // lilv's own tool, reading the user's folder as every LV2 host does.
        let lv2info = Process()
        lv2info.executableURL = URL(fileURLWithPath: "/usr/bin/lv2info")
        lv2info.arguments = ["http://drobilla.net/plugins/mda/ThruZero"]
        lv2info.environment = ["HOME": home, "LV2_PATH": home + "/.lv2:/usr/lib/x86_64-linux-gnu/lv2:/usr/lib/lv2"]
        let pipe = Pipe()
        lv2info.standardOutput = pipe
        try lv2info.run()
        let listing = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        lv2info.waitUntilExit()
        #expect(listing.contains("Slow Sweep"), "\(listing)")

        let again = try Self.presetRig(home: home, session: session)
        defer { again.stop() }
        let client = try again.client()
        #expect(try client.request("preset flanger").contains("\"Slow Sweep\""))
        #expect(try client.request("preset flanger Slow Sweep") == "ok Slow Sweep")
        #expect(try client.request("get flanger depth") == "ok 0.25")
    }
}
