import Foundation
import Glibc
import Testing
import TrellisControl

/// `trellis-nsm` under a session manager, driven message by message as NSM API 1.1.2
/// says, by a stand-in server (NSMServerStandIn) on a real jackd.
extension LiveControlTests {
    @Test("announce, open, dirty, save, switch and SIGTERM get the replies NSM API 1.1.2 requires, each within 1 s")
    func sessionManagerWalk() throws {
        let rig = try NSMRig()
        defer { rig.stop() }
        let nsm = rig.nsm

        // Announce: from the socket every later message comes from, before any JACK client.
        let announce = try #require(nsm.next("/nsm/server/announce"), "no announce within 1 s")
        #expect(announce.string(0) == "Trellis")
        let capabilities = try #require(announce.string(1))
        for capability in ["switch", "dirty", "message"] { #expect(capabilities.contains(":\(capability):")) }
        #expect(!capabilities.contains("optional-gui"))
        #expect(announce.string(2).map { $0.hasSuffix("trellis-nsm") } == true)
        #expect(announce.int(3) == 1 && announce.int(4) == 1)
        #expect(announce.int(5) == rig.process.processIdentifier)
        let client = announce.source
        #expect(rig.ports().isEmpty, "a JACK client before open: \(rig.ports())")
        nsm.send("/reply", [.string("/nsm/server/announce"), .string("Welcome"), .string("Stand-in"), .string(":server-control:broadcast:optional-gui:")], to: client)

        // Open: a new session, created in the folder given, as a JACK client named by the id.
        let first = rig.root + "/Song/Trellis.nAAAA"
        nsm.send("/nsm/client/open", [.string(first), .string("Trellis"), .string("Trellis.nAAAA")], to: client)
        let opened = try #require(nsm.answer(to: "/nsm/client/open"), "no reply to open within 1 s")
        #expect(opened.path == "/reply" && opened.source == client, "\(opened)")
        #expect(FileManager.default.fileExists(atPath: first + "/session.yaml"))
        #expect(rig.ports() == ["Trellis.nAAAA:in_1", "Trellis.nAAAA:in_2", "Trellis.nAAAA:out_1", "Trellis.nAAAA:out_2"])

        // Dirty as an edit happens.
        _ = nsm.drain()
        #expect(try rig.ask("Trellis.nAAAA", "add trim gain gain=-6").hasPrefix("ok"))
        let dirty = try #require(nsm.next("/nsm/client/is_dirty"), "no is_dirty within 1 s of an edit")
        #expect(dirty.source == client)

        // Save: atomic, then clean, then the reply.
        nsm.send("/nsm/client/save", [], to: client)
        let saved = try #require(nsm.answer(to: "/nsm/client/save"), "no reply to save within 1 s")
        #expect(saved.path == "/reply" && saved.source == client, "\(saved)")
        #expect(nsm.next("/nsm/client/is_clean") != nil, "no is_clean after the save")
        let text = try String(contentsOfFile: first + "/session.yaml", encoding: .utf8)
        #expect(text.contains("trim:") && text.contains("gain: -6"), "\(text)")

        // Switch: another session without a restart, under its own client id.
        let second = rig.root + "/Other/Trellis.nBBBB"
        nsm.send("/nsm/client/open", [.string(second), .string("Trellis"), .string("Trellis.nBBBB")], to: client)
        let switched = try #require(nsm.answer(to: "/nsm/client/open"), "no reply to the switch within 1 s")
        #expect(switched.path == "/reply", "\(switched)")
        #expect(rig.ports().allSatisfy { $0.hasPrefix("Trellis.nBBBB:") } && rig.ports().count == 4, "\(rig.ports())")
        #expect(try !rig.ask("Trellis.nBBBB", "list").contains("trim"))

        // The saved session reopens as it was saved.
        nsm.send("/nsm/client/open", [.string(first), .string("Trellis"), .string("Trellis.nAAAA")], to: client)
        let reopened = try #require(nsm.answer(to: "/nsm/client/open"), "no reply to reopening within 1 s")
        #expect(reopened.path == "/reply", "\(reopened)")
        #expect(try rig.ask("Trellis.nAAAA", "get trim gain").contains("-6"))

        // SIGTERM: gone at once, cleanly, and out of JACK.
        let asked = Date()
        kill(rig.process.processIdentifier, SIGTERM)
        rig.process.waitUntilExit()
        #expect(Date().timeIntervalSince(asked) < 1, "took \(Date().timeIntervalSince(asked)) s to exit on SIGTERM")
        #expect(rig.process.terminationReason == .exit && rig.process.terminationStatus == 0, "\(LiveRig.describeExit(rig.process))")
        #expect(rig.ports().isEmpty)
    }

    @Test("a session file that does not load is answered ERR_BAD_PROJECT with its place, and the session open stays")
    func sessionManagerBadProject() throws {
        let rig = try NSMRig()
        defer { rig.stop() }
        let client = try rig.welcome()
        let good = rig.root + "/Song/Trellis.nAAAA"
        rig.nsm.send("/nsm/client/open", [.string(good), .string("Trellis"), .string("Trellis.nAAAA")], to: client)
        #expect(rig.nsm.answer(to: "/nsm/client/open")?.path == "/reply")

        let bad = rig.root + "/Broken/Trellis.nCCCC"
        try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: true)
        try write("version: 1\nnodes:\n  x: { unit: no-such-unit }\n", to: "session.yaml", in: bad)
        rig.nsm.send("/nsm/client/open", [.string(bad), .string("Trellis"), .string("Trellis.nCCCC")], to: client)
        let refused = try #require(rig.nsm.answer(to: "/nsm/client/open"), "no answer within 1 s")
        #expect(refused.path == "/error" && refused.int(1) == -9, "\(refused)")
        #expect(refused.string(2).map { $0.contains("session.yaml:3") && $0.contains("no-such-unit") } == true, "\(refused)")
        #expect(rig.ports().allSatisfy { $0.hasPrefix("Trellis.nAAAA:") } && !rig.ports().isEmpty, "\(rig.ports())")
    }

    @Test("under a session manager, ctl load is refused: the manager chooses the session")
    func sessionManagerRefusesLoad() throws {
        let rig = try NSMRig()
        defer { rig.stop() }
        let client = try rig.welcome()
        rig.nsm.send("/nsm/client/open", [.string(rig.root + "/Song/Trellis.nAAAA"), .string("Trellis"), .string("Trellis.nAAAA")], to: client)
        #expect(rig.nsm.answer(to: "/nsm/client/open")?.path == "/reply")
        let other = try write(toneSession, to: "other.yaml", in: rig.root)
        let reply = try rig.ask("Trellis.nAAAA", "load \(other)")
        #expect(reply.hasPrefix("error UNSUPPORTED") && reply.contains("session manager"), "\(reply)")
    }

    @Test("nsm --web serves the open session's desk on its port, and after a switch the new session's, to the new session's token only")
    func sessionManagerServesTheDesk() throws {
        let port = try freeTCPPort()
        let rig = try NSMRig(arguments: ["--web", "127.0.0.1:\(port)"])
        defer { rig.stop() }
        let client = try rig.welcome()
        func open(_ id: String, in folder: String) throws -> ControlSecret {
            rig.nsm.send("/nsm/client/open", [.string(rig.root + "/\(folder)/\(id)"), .string("Trellis"), .string(id)], to: client)
            let answer = rig.nsm.answer(to: "/nsm/client/open", within: 10)
            #expect(answer?.path == "/reply", "\(String(describing: answer))\n\(rig.log)")
            let file = try ControlSecretFile.read(rig.runtime + "/trellis/\(id).secret")
            #expect(file.webURL == "http://127.0.0.1:\(port)/", "\(String(describing: file.webURL))")
            return file.secret
        }
        let first = try open("Trellis.nAAAA", in: "Song")
        #expect(try httpStatus(port: port, path: "/?token=\(first.webToken)") == 303)
        #expect(try httpStatus(port: port, path: "/") == 401, "no page without the cookie")

        let second = try open("Trellis.nBBBB", in: "Other")
        #expect(try httpStatus(port: port, path: "/?token=\(second.webToken)") == 303)
        #expect(try httpStatus(port: port, path: "/?token=\(first.webToken)") == 401, "the closed session's token opens nothing")
    }

    @Test("messages from anyone but the session manager are not heard")
    func sessionManagerOnlyHearsItsServer() throws {
        let rig = try NSMRig()
        defer { rig.stop() }
        let client = try rig.welcome()
        let stranger = try NSMServerStandIn()
        stranger.send("/nsm/client/open", [.string(rig.root + "/Evil/Trellis.nEVIL"), .string("Trellis"), .string("Trellis.nEVIL")], to: client)
        #expect(stranger.answer(to: "/nsm/client/open") == nil)
        #expect(rig.nsm.drain(for: 0.3).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: rig.root + "/Evil"))
    }
}

extension LiveControlTests {
    @Test("the client's OSC socket listens on the loopback address a local manager is reached from, not on every interface")
    func sessionManagerSocketIsLoopbackOnly() throws {
        let rig = try NSMRig()
        defer { rig.stop() }
        let client = try rig.welcome()
        // The client's URL, as the server saw it: osc.udp://HOST:PORT/.
        let port = try #require(client.split(separator: ":").last.flatMap { UInt16($0.filter(\.isNumber)) }, "\(client)")
        // /proc/net/udp: "sl local_address:port ..." in hex, the address in network order read as a little-endian word.
        let table = try String(contentsOfFile: "/proc/net/udp", encoding: .utf8)
        let locals = table.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let local = line.split(separator: " ", omittingEmptySubsequences: true)[1]
            let parts = local.split(separator: ":")
            return UInt16(parts[1], radix: 16) == port ? String(parts[0]) : nil
        }
        #expect(locals == ["0100007F"], "the client's socket is bound to \(locals), not 127.0.0.1")
    }
}

/// A jackd, a stand-in NSM server, and `trellis-nsm` (a link to the built trellis)
/// started the way a session manager starts it: no arguments, NSM_URL set.
final class NSMRig {
    let root: String
    let serverName: String
    let nsm: NSMServerStandIn
    let process = Process()
    private let jackd: Process
    let runtime: String

    /// `arguments` follow the program's name, as a manager's "executable" entry may give them.
    init(arguments: [String] = []) throws {
        root = try temporaryFolder()
        serverName = "trellis-nsm-\(UUID().uuidString.prefix(8))"
        runtime = root + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        jackd = try LiveRig.startJACK(serverName, log: root + "/jackd.log")
        nsm = try NSMServerStandIn()
        let link = root + "/bin/trellis-nsm"
        try FileManager.default.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: trellisExecutable.path)
        process.executableURL = URL(fileURLWithPath: link)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging([
            "NSM_URL": nsm.url, "JACK_DEFAULT_SERVER": serverName, "XDG_RUNTIME_DIR": runtime,
            "SWIFT_BACKTRACE": "enable=yes,output-to=stderr",
        ]) { $1 }
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = try LiveRig.logFile(root + "/nsm.log")
        try process.run()
    }

    /// Takes the announce and welcomes the client; returns its address.
    func welcome() throws -> String {
        let announce = try #require(nsm.next("/nsm/server/announce", within: 5), "no announce within 5 s: \(log)")
        nsm.send("/reply", [.string("/nsm/server/announce"), .string("Welcome"), .string("Stand-in"), .string(":server-control:")], to: announce.source)
        return announce.source
    }

    var log: String { (try? String(contentsOfFile: root + "/nsm.log", encoding: .utf8)) ?? "" }

    /// One request on the control socket of the session running as `clientID`.
    func ask(_ clientID: String, _ line: String) throws -> String {
        try ControlClient(endpoint: .unix(path: runtime + "/trellis/\(clientID).sock")).request(line)
    }

    /// The JACK ports on the server other than the dummy backend's own.
    func ports() -> [String] {
        let lsp = Process()
        lsp.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        lsp.arguments = ["jack_lsp", "-s", serverName]
        let pipe = Pipe()
        lsp.standardOutput = pipe
        lsp.standardError = FileHandle(forWritingAtPath: "/dev/null")
        guard (try? lsp.run()) != nil else { return [] }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        lsp.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("system:") }.sorted()
    }

    func stop() {
        end(process)
        end(jackd)
        try? FileManager.default.removeItem(atPath: root)
    }
}

/// A TCP port no one listens on now, on 127.0.0.1.
func freeTCPPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw TestFailure("bind: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The status code of `GET path` on 127.0.0.1:`port`, read from the response's first line
/// (RFC 9112); the whole exchange within 5 s.
func httpStatus(port: Int, path: String) throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else { throw TestFailure("connect to port \(port): \(errno)") }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
    guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw TestFailure("send: \(errno)") }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !response.contains(UInt8(ascii: "\n")) {
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { break }
        response += buffer[0..<count]
    }
    let line = String(decoding: response.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
    let words = line.split(separator: " ")
    guard words.count >= 2, words[0].hasPrefix("HTTP/1."), let status = Int(words[1]) else { throw TestFailure("not an HTTP response: \(line)") }
    return status
}
