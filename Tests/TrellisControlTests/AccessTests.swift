import Foundation
import Glibc
import Testing
import TrellisControl

@Suite("Who may control a session")
struct AccessTests {
    @Test("a TCP client that does not start with the secret runs nothing and is disconnected")
    func tcpWithoutSecret() throws {
        let rig = try ControlRig(endpoint: .tcp(port: 0))
        defer { rig.stop() }
        let stranger = try ControlClient(endpoint: rig.server.endpoint)
        try stranger.send("set trim gain -9")
        try stranger.send("save \(rig.folder)/stolen.yaml")
        #expect(try stranger.readLine()?.hasPrefix("error AUTH the first line must be \"auth SECRET\"") == true)
        #expect(try stranger.readLine() == nil)
        #expect(try rig.ask("get trim gain") == "ok 0")
        #expect(!FileManager.default.fileExists(atPath: rig.folder + "/stolen.yaml"))
    }

    @Test("a TCP client that sends nothing is told and disconnected once the time to authenticate is up")
    func idleClientIsLetGo() throws {
        var limits = LineServer.Limits()
        limits.authenticationSeconds = 1
        let rig = try ControlRig(endpoint: .tcp(port: 0), limits: limits)
        defer { rig.stop() }
        let idle = try ControlClient(endpoint: rig.server.endpoint)
        #expect(try idle.readLine(timeout: 5) == "error AUTH not authenticated within 1 s; the connection is closed")
        #expect(try idle.readLine(timeout: 5) == nil)
    }

    @Test("clients waiting to authenticate are capped in all and per address; past the cap they are refused, the owner is not")
    func waitingClientsAreCapped() throws {
        var limits = LineServer.Limits()
        limits.unauthenticated = 8
        limits.unauthenticatedPerAddress = 6
        let rig = try ControlRig(endpoint: .tcp(port: 0), limits: limits)
        defer { rig.stop() }
        var idle: [ControlClient] = []
        for _ in 0..<6 { idle.append(try ControlClient(endpoint: rig.server.endpoint)) }
        // Every client here comes from 127.0.0.1: the seventh passes the per-address cap.
        let refused = try ControlClient(endpoint: rig.server.endpoint)
        #expect(try refused.readLine(timeout: 5) == "error AUTH too many connections are waiting to authenticate; try again later")
        #expect(rig.server.connectionCount <= 6)
        for client in idle { client.close() }
        usleep(300_000)
        let owner = try ControlClient(endpoint: rig.server.endpoint)
        #expect(try owner.request("auth " + rig.secret.text) == "ok authenticated")
        #expect(try owner.request("get trim gain") == "ok 0")
    }

    @Test("a wrong secret is refused and closes the connection; the right one lets commands run")
    func tcpSecret() throws {
        let rig = try ControlRig(endpoint: .tcp(port: 0))
        defer { rig.stop() }
        let guesser = try ControlClient(endpoint: rig.server.endpoint)
        #expect(try guesser.request("auth " + ControlSecret.random().text) == "error AUTH the secret is wrong; the connection is closed")
        #expect(try guesser.readLine() == nil)
        let owner = try ControlClient(endpoint: rig.server.endpoint)
        #expect(try owner.request("auth " + rig.secret.text) == "ok authenticated")
        #expect(try owner.request("set trim gain -9") == "ok -9")
    }

    @Test("the secret file is the user's alone and names the ports it is for")
    func secretFile() throws {
        let folder = try temporaryFolder()
        let rig = try ControlRig()
        defer { rig.stop() }
        let server = try ControlServer(target: rig.target, socketPath: folder + "/s.sock", tcpPort: 0, oscPort: 0)
        server.start()
        let path = folder + "/s.secret"
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_uid == geteuid())
        let file = try ControlSecretFile.read(path)
        #expect(file.secret == server.secret)
        guard case .tcp(let port) = server.endpoints[1] else { Issue.record("no TCP"); return }
        #expect(file.tcpPort == port && file.oscPort == server.osc?.port)
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("trellis ctl --tcp reads the secret, and will not send it to a port the session does not serve")
    func ctlReadsSecret() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let server = try ControlServer(target: rig.target, socketPath: rig.folder + "/s.sock", tcpPort: 0)
        server.start()
        defer { server.stop() }
        guard case .tcp(let port) = server.endpoints[1] else { Issue.record("no TCP"); return }
        let served = try trellis(["ctl", "--tcp", String(port), rig.folder + "/s.sock", "set", "trim", "gain", "-2"])
        #expect(served.status == 0 && served.stdout == "ok -2\n", "\(served.stderr)")
        let elsewhere = try trellis(["ctl", "--tcp", String(port + 1), rig.folder + "/s.sock", "hello"])
        #expect(elsewhere.status != 0)
        #expect(elsewhere.stderr.contains("serves TCP on port \(port), not on port \(port + 1)"))
    }

    @Test("a secret file others could read is not trusted")
    func looseSecretFile() throws {
        let folder = try temporaryFolder()
        let path = folder + "/x.secret"
        try ControlSecretFile(secret: .random(), tcpPort: 1, oscPort: nil).write(to: path)
        chmod(path, 0o644)
        #expect(throws: ControlSocketError.self) { try ControlSecretFile.read(path) }
    }

    @Test("a load of a file that is not a session says so and shows nothing of it")
    func loadShowsNoContent() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let path = try write("root:hunter2-hash:19000:0:99999:7:::\nPRETTY_NAME: hunter2\n", to: "shadow", in: rig.folder)
        let reply = try rig.ask("load \(path)")
        #expect(reply.hasPrefix("error SESSION \(path):1:1: \(path) is not a Trellis session"), "\(reply)")
        #expect(!reply.contains("hunter2"))
    }

    @Test("a session whose subgraph file is not a session says so and shows nothing of that file")
    func subgraphFileShowsNoContent() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let secret = try write("root:hunter2-hash:19000:0:99999:7:::\nPRETTY_NAME: hunter2\n", to: "shadow", in: rig.folder)
        chmod(secret, 0o600)
        let session = try write("""
            version: 1
            subgraphs: { sh: { file: \(secret) } }
            nodes:
              a: { subgraph: sh }
            """, to: "names-a-secret.yaml", in: rig.folder)
        let reply = try rig.ask("load \(session)")
        #expect(reply.hasPrefix("error SESSION \(session):2:26: subgraph \"sh\": \(secret) is not a Trellis session"), "\(reply)")
        #expect(!reply.contains("hunter2"))
        let validated = try trellis(["validate", session])
        #expect(validated.status != 0 && !validated.stdout.contains("hunter2") && !validated.stderr.contains("hunter2"), "\(validated.stderr)")
    }

    @Test("a relative path over the protocol is in the session's folder")
    func relativeToSession() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        #expect(try rig.ask("save copy.yaml") == "ok \(rig.folder)/copy.yaml")
        #expect(FileManager.default.fileExists(atPath: rig.folder + "/copy.yaml"))
        #expect(try rig.ask("load copy.yaml").hasPrefix("ok 3 nodes"))
    }

    @Test("a FIFO is refused as a session at once, never waited on")
    func fifoLoad() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        #expect(mkfifo(rig.folder + "/pipe.yaml", 0o600) == 0)
        let started = Date()
        #expect(try rig.ask("load pipe.yaml").contains("is a FIFO, not a session file"))
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(try rig.ask("hello").hasPrefix("ok"))
    }

    @Test("the shared runtime folder must be the user's own and closed to others, else the session does not start")
    func runtimeFolderChecked() throws {
        let base = try temporaryFolder()
        try FileManager.default.createDirectory(atPath: base + "/trellis", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let session = try write(toneSession, to: "open.yaml", in: base)
        let result = try trellis(["run", session, "--start-server", "--server", "trellis-access-\(getpid())", "--duration", "1"],
                                 environment: ["XDG_RUNTIME_DIR": base])
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(base)/trellis: cannot use the runtime folder: others may use it (mode 755)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: base + "/trellis/open.sock"))
    }
}
