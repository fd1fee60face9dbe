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

/// A jackd, a stand-in NSM server, and `trellis-nsm` (a link to the built trellis)
/// started the way a session manager starts it: no arguments, NSM_URL set.
final class NSMRig {
    let root: String
    let serverName: String
    let nsm: NSMServerStandIn
    let process = Process()
    private let jackd: Process
    private let runtime: String

    init() throws {
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
        process.arguments = []
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
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        if jackd.isRunning {
            jackd.terminate()
            jackd.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: root)
    }
}
