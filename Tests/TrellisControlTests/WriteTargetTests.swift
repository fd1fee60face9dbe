import Foundation
import Glibc
import Testing
import TrellisControl

/// Another user prepares a shared folder (mode 1777) for a session run by root: links to
/// root's files and files of their own with every mode bit. Every writer (save, render,
/// recover) follows the one rule of `WriteTarget`.
@Suite("Writes another user cannot redirect", .enabled(if: getuid() == 0, "needs root to act as another user (setpriv)"))
struct WriteTargetTests {
    /// A folder nobody may enter but root, with a root-only file in it; and a shared
    /// folder (1777) beside it.
    struct Folders {
        let base: String
        let shared: String
        let secret: String
        static let secretText = "root only\n"

        init() throws {
            base = try temporaryFolder()
            chmod(base, 0o755)
            shared = base + "/shared"
            mkdir(shared, 0o777)
            chmod(shared, 0o1777)
            mkdir(base + "/private", 0o700)
            secret = try write(Self.secretText, to: "secret.txt", in: base + "/private")
            chmod(secret, 0o600)
        }

        /// Runs `script` in the shared folder as nobody.
        func asOtherUser(_ script: String) throws {
            let made = try asNobody(["/bin/sh", "-c", "cd \(shared) && \(script)"])
            #expect(made.status == 0, "\(made.output)")
        }

        func remove() { try? FileManager.default.removeItem(atPath: base) }
    }

    static func owner(_ path: String) -> uid_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_uid : 0
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test("save does not follow a link another user made in a shared folder to a root-only file")
    func saveRefusesOthersLink() throws {
        let folders = try Folders()
        defer { folders.remove() }
        try folders.asOtherUser("ln -s \(folders.secret) mix.yaml")
        let rig = try ControlRig()
        defer { rig.stop() }
        let reply = try rig.ask("save \(folders.shared)/mix.yaml")
        #expect(reply.hasPrefix("error") && reply.contains("a link made by user 65534"), "\(reply)")
        #expect(try String(contentsOfFile: folders.secret, encoding: .utf8) == Folders.secretText)
    }

    @Test("save does not replace another user's file, set-user-ID or not, and leaves it as it was")
    func saveRefusesOthersFile() throws {
        let folders = try Folders()
        defer { folders.remove() }
        try folders.asOtherUser("echo theirs > mix.yaml && chmod 4777 mix.yaml")
        let rig = try ControlRig()
        defer { rig.stop() }
        let path = folders.shared + "/mix.yaml"
        let reply = try rig.ask("save \(path)")
        #expect(reply.hasPrefix("error") && reply.contains("belongs to user 65534"), "\(reply)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs\n")
        #expect(Self.owner(path) == 65534 && Self.mode(path) == 0o4777)
    }

    @Test("a save over a file of one's own drops its set-user-ID, set-group-ID and others' write bits")
    func saveDropsDangerousBits() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let path = try write("version: 1\n", to: "mine.yaml", in: rig.folder)
        chmod(path, 0o6777)
        #expect(try rig.ask("save \(path)").hasPrefix("ok"))
        #expect(Self.mode(path) == 0o775, "mode \(String(Self.mode(path), radix: 8))")
    }

    @Test("render -o and recover refuse another user's file and leave it as it was")
    func renderAndRecoverRefuseOthersFile() throws {
        let folders = try Folders()
        defer { folders.remove() }
        let session = try write(toneSession, to: "tone.yaml", in: folders.base)
        try folders.asOtherUser("echo theirs > out.wav")
        let output = folders.shared + "/out.wav"
        let rendered = try trellis(["render", session, "-o", output, "--duration", "0.1"])
        #expect(rendered.status != 0 && rendered.stderr.contains("belongs to user 65534"), "\(rendered.stderr)")
        let recovered = try trellis(["recover", output])
        #expect(recovered.status != 0 && recovered.stderr.contains("belongs to user 65534"), "\(recovered.stderr)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "theirs\n")
        // And a link of theirs to root's file is a link: refused, never written through.
        try folders.asOtherUser("ln -s \(folders.secret) link.wav")
        let through = try trellis(["render", session, "-o", folders.shared + "/link.wav", "--duration", "0.1"])
        #expect(through.status != 0)
        #expect(try String(contentsOfFile: folders.secret, encoding: .utf8) == Folders.secretText)
    }

    @Test("a cache, state or presets folder another user made is neither read nor written, and the warning says why")
    func othersCacheFolderIsNotUsed() throws {
        let folders = try Folders()
        defer { folders.remove() }
        // Their trellis folders, open to them, with a catalog and a preset of their making.
        try folders.asOtherUser("mkdir -m 755 trellis && echo poisoned > trellis/lv2-names && mkdir -p config/trellis/presets/aufx-gain-trls && echo 'preset: Theirs' > config/trellis/presets/aufx-gain-trls/theirs.yaml && echo 'unit: aufx:gain:trls' >> config/trellis/presets/aufx-gain-trls/theirs.yaml")
        let plugins = folders.base + "/lv2"
        mkdir(plugins, 0o755)
        symlink("/usr/lib/lv2/eg-amp.lv2", plugins + "/eg-amp.lv2")
        let environment = ["XDG_CACHE_HOME": folders.shared, "XDG_STATE_HOME": folders.shared, "XDG_CONFIG_HOME": folders.shared + "/config", "LV2_PATH": plugins]
        let listed = try trellis(["units"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains("not using \(folders.shared)/trellis for the LV2 catalog: it belongs to user 65534"), "\(listed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folders.shared + "/trellis") == ["lv2-names"])
        #expect(try String(contentsOfFile: folders.shared + "/trellis/lv2-names", encoding: .utf8) == "poisoned\n")
        let session = try write("version: 1\nnodes:\n  trim: { unit: gain, preset: Theirs }\n", to: "preset.yaml", in: folders.base)
        let validated = try trellis(["validate", session], environment: environment)
        #expect(validated.status != 0, "their preset was applied: \(validated.stdout)")
    }
}
