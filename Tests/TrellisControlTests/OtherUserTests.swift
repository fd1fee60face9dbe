import Foundation
import Glibc
import Testing
import TrellisControl

/// Runs a system program as `nobody` (setpriv, as root), with what it prints; killed
/// after a minute (SIGKILL 5 s after SIGTERM).
func asNobody(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["-k", "5", "60", "/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// A client in Python (not Trellis' own) that sends `text` to a TCP port or a socket
/// path and prints `REPLY:` and everything the server answered before it closed.
func rawClientAsNobody(_ address: String, _ text: String) throws -> String {
    let script = """
        import socket, sys
        address = sys.argv[1]
        if address.startswith("/"):
            s = socket.socket(socket.AF_UNIX)
            s.connect(address)
        else:
            s = socket.create_connection(("127.0.0.1", int(address)))
        try:
            s.sendall(sys.argv[2].encode())
        except OSError:
            pass  # a server that refused at once may have closed already
        s.settimeout(3)
        data = b""
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk: break
                data += chunk
        except OSError:
            pass
        print("REPLY:" + data.decode())
        """
    return try asNobody(["/usr/bin/python3", "-c", script, address, text]).output
}

extension LiveControlTests {
    @Test(
        "another user is refused on the socket, on TCP and on OSC: nothing runs and nothing is written",
        .enabled(if: getuid() == 0, "needs root to run a client as another user (setpriv)"))
    func anotherUserIsRefused() throws {
        let rig = try LiveRig(arguments: ["--control-tcp", "0", "--osc-port", "0"])
        defer { rig.stop() }
        chmod(rig.folder, 0o755)
        let file = try ControlSecretFile.read(rig.folder + "/control.secret")
        let tcp = try #require(file.tcpPort), osc = try #require(file.oscPort)
        let target = "/tmp/trellis-stolen-\(getpid()).yaml"
        defer { unlink(target) }

        // The secret is unreadable to another user.
        let cat = try asNobody(["/bin/cat", rig.folder + "/control.secret"])
        #expect(cat.status != 0 && cat.output.contains("Permission denied"))

        // TCP: commands without the secret, and with a guessed one.
        let bare = try rawClientAsNobody(String(tcp), "save \(target)\nset trim gain -9\n")
        #expect(bare.hasPrefix("REPLY:error AUTH the first line must be"), "\(bare)")
        let guessed = try rawClientAsNobody(String(tcp), "auth \(ControlSecret.random().text)\nsave \(target)\n")
        #expect(guessed.hasPrefix("REPLY:error AUTH the secret is wrong"), "\(guessed)")

        // The socket, even opened to everyone: the kernel names the user who connected.
        chmod(rig.socketPath, 0o666)
        let local = try rawClientAsNobody(rig.socketPath, "save \(target)\nset trim gain -9\n")
        #expect(local.hasPrefix("REPLY:error AUTH this session serves only user 0"), "\(local)")

        // OSC, with liblo's oscsend: no secret, and a wrong one.
        _ = try asNobody(["/usr/bin/oscsend", "127.0.0.1", String(osc), "/trellis/save", "s", target])
        _ = try asNobody(["/usr/bin/oscsend", "127.0.0.1", String(osc), "/trellis/set", "sssf", ControlSecret.random().text, "trim", "gain", "-9"])

        // The session's own user, on the socket: the session is as it was.
        #expect(try rig.ask("get trim gain") == "ok 0")
        #expect(!FileManager.default.fileExists(atPath: target))
        // And its own user gets in with the secret, which nobody else could read.
        #expect(try ControlClient(endpoint: .tcp(port: tcp), secret: file.secret).request("get trim gain") == "ok 0")
    }

    @Test(
        "another user cannot make the runtime folder first and take the session's socket",
        .enabled(if: getuid() == 0, "needs root to act as another user (setpriv)"))
    func precreatedFolderIsRefused() throws {
        let base = try temporaryFolder()
        chmod(base, 0o1777)
        let made = try asNobody(["/bin/mkdir", "-m", "700", base + "/trellis"])
        #expect(made.status == 0, "\(made.output)")
        let session = try write(toneSession, to: "mine.yaml", in: base)
        let result = try trellis(["run", session, "--start-server", "--server", "trellis-other-\(getpid())", "--duration", "1"],
                                 environment: ["XDG_RUNTIME_DIR": base])
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot use the runtime folder: it belongs to user 65534, not to this user (0)"), "\(result.stderr)")
    }
}
