import Foundation
import Testing

/// `files:` from the control plane: given with `add`, written back by `save`, carried
/// by `save --bundle`.
@Suite("Files for plugins from the control plane")
struct PluginFilesControlTests {
    static let convolver = "http://gareus.org/oss/lv2/zeroconvolv#CfgMono"

    /// Runs sox under a deadline; its stdout.
    @discardableResult
    func sox(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["-k", "5", "120", "/usr/bin/sox"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "sox \(arguments)")
        return data
    }

    /// Noise to play and a short impulse response, in `folder`.
    func media(in folder: String) throws -> (input: String, response: String) {
        let input = folder + "/noise.wav", response = folder + "/room.wav"
        try sox(["-n", "-r", "48000", "-c", "1", "-b", "16", input, "synth", "1", "whitenoise", "vol", "0.3"])
        try sox(["-n", "-r", "48000", "-c", "1", "-b", "16", response, "synth", "0.05", "pinknoise", "fade", "0", "0.05", "0.05", "vol", "0.2"])
        return (input, response)
    }

    @Test("add takes files.NAME= relative to the session's folder, and save writes them back relative to it")
    func addAndSave() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        _ = try media(in: rig.folder)
        #expect(try rig.ask("add conv lv2:\(Self.convolver) files.ir=room.wav") == "ok conv")
        #expect(try rig.ask("save copy.yaml") == "ok \(rig.folder)/copy.yaml")
        let saved = try String(contentsOfFile: rig.folder + "/copy.yaml", encoding: .utf8)
        #expect(saved.contains("files:\n      ir: room.wav"), "\(saved)")
        let refused = try rig.ask("add other lv2:\(Self.convolver) files.ir=nowhere.wav")
        #expect(refused.hasPrefix("error BAD_VALUE") && refused.contains("\(rig.folder)/nowhere.wav for \"ir\""), "\(refused)")
        #expect(!rig.graph.nodes.contains { $0.name == "other" })
    }

    @Test("file NODE NAME PATH gives a running plugin another file, save writes it, and a name it does not take is refused with the names it does")
    func fileCommand() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        _ = try media(in: rig.folder)
        try FileManager.default.copyItem(atPath: rig.folder + "/room.wav", toPath: rig.folder + "/hall.wav")
        #expect(try rig.ask("add conv lv2:\(Self.convolver) files.ir=room.wav") == "ok conv")
        #expect(try rig.ask("file conv ir hall.wav") == "ok \(rig.folder)/hall.wav")
        #expect(try rig.ask("save") == "ok \(rig.folder)/session.yaml")
        let saved = try String(contentsOfFile: rig.folder + "/session.yaml", encoding: .utf8)
        #expect(saved.contains("ir: hall.wav") && !saved.contains("room.wav"), "\(saved)")
        let unknown = try rig.ask("file conv impulse hall.wav")
        #expect(unknown.hasPrefix("error BAD_VALUE") && unknown.contains("it takes ir"), "\(unknown)")
        let builtIn = try rig.ask("file trim ir hall.wav")
        #expect(builtIn.hasPrefix("error UNSUPPORTED") && builtIn.contains("takes no files"), "\(builtIn)")
    }

    @Test("save --bundle copies the files nodes play and take into the folder, and the bundle renders the same without the originals")
    func bundleTravels() throws {
        let elsewhere = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        let (input, response) = try media(in: elsewhere)
        let session = """
            version: 1
            nodes:
              in: { unit: player, file: \(input) }
              conv:
                lv2: "\(Self.convolver)"
                files: { ir: \(response) }
              out: { unit: output, channels: 1 }
            connections: [in -> conv -> out]
            """
        let rig = try ControlRig(session: session)
        defer { rig.stop() }
        let original = rig.folder + "/original.wav"
        #expect(try trellis(["render", rig.folder + "/session.yaml", "-o", original]).status == 0)
        #expect(try rig.ask("save --bundle kit") == "ok \(rig.folder)/kit/session.yaml")
        let saved = try String(contentsOfFile: rig.folder + "/kit/session.yaml", encoding: .utf8)
        #expect(saved.contains("file: files/noise.wav") && saved.contains("ir: files/room.wav"), "\(saved)")
        try FileManager.default.removeItem(atPath: input)
        try FileManager.default.removeItem(atPath: response)
        let bundled = rig.folder + "/bundled.wav"
        let result = try trellis(["render", rig.folder + "/kit/session.yaml", "-o", bundled])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sox([bundled, "-t", "f32", "-"]) == sox([original, "-t", "f32", "-"]))
        try FileManager.default.createDirectory(atPath: rig.folder + "/shared", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        chmod(rig.folder + "/shared", 0o777)
        let shared = try rig.ask("save --bundle shared")
        #expect(shared.hasPrefix("error SESSION") && shared.contains("a bundle is not written there"), "\(shared)")
        let again = try rig.ask("save --bundle kit")
        #expect(again.hasPrefix("error SESSION") && again.contains("new or empty folder"), "\(again)")
    }
}
