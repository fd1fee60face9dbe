import Foundation
import Glibc
import Testing
import TrellisControl

/// A UDP client that sends OSC messages and reads the server's replies.
final class OSCTestClient {
    let fd: Int32
    let port: Int

    init(port: Int) {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    }

    deinit { close(fd) }

    func send(_ message: OSCMessage) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bytes = message.encoded()
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// The next message within `timeout` seconds.
    func receive(timeout: Double = 5) throws -> OSCMessage? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return try OSCMessage.decode(Array(buffer[0..<count])).first
    }

    func request(_ path: String, _ arguments: [OSCMessage.Argument]) throws -> [String] {
        send(OSCMessage(path: path, arguments: arguments))
        let reply = try #require(try receive())
        return reply.arguments.map { if case .string(let text) = $0 { text } else { "\($0)" } }
    }
}

/// Runs liblo's `oscsend` (a program outside Trellis) once.
func oscsend(_ port: Int, _ path: String, _ types: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["-s", "KILL", "10", "oscsend", "127.0.0.1", String(port), path, types] + arguments
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "oscsend \(path) failed")
}

@Suite("OSC")
struct OSCTests {
    @Test("a reply carries ok and the result, or error with its code and message")
    func replies() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let secret = ControlSecret.random()
        let server = try OSCServer(port: 0, dispatcher: rig.dispatcher, secret: secret)
        server.start()
        defer { server.stop() }
        let client = OSCTestClient(port: server.port)
        #expect(try client.request("/trellis/set", [.string(secret.text), .string("trim"), .string("gain"), .float(-4.5)]) == ["/trellis/set", "ok", "-4.5"])
        #expect(try client.request("/trellis/get", [.string(secret.text), .string("trim"), .string("gain")]) == ["/trellis/get", "ok", "-4.5"])
        let error = try client.request("/trellis/get", [.string(secret.text), .string("trim"), .string("loudness")])
        #expect(Array(error.prefix(3)) == ["/trellis/get", "error", "UNKNOWN_PARAMETER"])
        #expect(try client.request("/other/thing", [.string(secret.text)])[2] == "UNKNOWN_COMMAND")
    }

    @Test("a message without the session's secret, or with another, runs nothing and is answered AUTH")
    func secretRequired() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let secret = ControlSecret.random()
        let server = try OSCServer(port: 0, dispatcher: rig.dispatcher, secret: secret)
        server.start()
        defer { server.stop() }
        let client = OSCTestClient(port: server.port)
        let save = rig.folder + "/stolen.yaml"
        for arguments: [OSCMessage.Argument] in [[.string(save)], [.string(ControlSecret.random().text), .string(save)], [.float(1), .string(save)]] {
            #expect(Array(try client.request("/trellis/save", arguments).prefix(3)) == ["/trellis/save", "error", "AUTH"])
        }
        #expect(Array(try client.request("/trellis/set", [.string("trim"), .string("gain"), .float(-9)]).prefix(3)) == ["/trellis/set", "error", "AUTH"])
        #expect(!FileManager.default.fileExists(atPath: save))
        #expect(try rig.ask("get trim gain") == "ok 0")
    }

    @Test("the same edits sent by oscsend and over the socket leave the same session")
    func sameEditsSameResult() throws {
        let viaSocket = try ControlRig(), viaOSC = try ControlRig()
        defer {
            viaSocket.stop()
            viaOSC.stop()
        }
        let secret = ControlSecret.random()
        let server = try OSCServer(port: 0, dispatcher: viaOSC.dispatcher, secret: secret)
        server.start()
        defer { server.stop() }
        let socket = try viaSocket.client()
        // What a rig shows: its nodes and connections, and the parameters of the three nodes.
        func state(_ ask: (String) throws -> String) throws -> [String] {
            try ["list", "params tone1", "params trim", "params boost"].map(ask)
        }
        var after: [[String]] = []
        for line in ["add boost gain channels=1 gain=3", "disconnect trim out", "connect trim boost", "connect boost out",
                     "set tone1 freq 440", "set trim gain -4.5", "set tone1 waveform square", "bypass boost on"] {
            #expect(try socket.request(line).hasPrefix("ok"), "\(line)")
            after.append(try state { try socket.request($0) })
        }
        let messages: [(String, String, [String])] = [
            ("/trellis/add", "sssss", [secret.text, "boost", "gain", "channels=1", "gain=3"]),
            ("/trellis/disconnect", "sss", [secret.text, "trim", "out"]),
            ("/trellis/connect", "sss", [secret.text, "trim", "boost"]),
            ("/trellis/connect", "sss", [secret.text, "boost", "out"]),
            ("/trellis/set", "sssf", [secret.text, "tone1", "freq", "440"]),
            ("/trellis/set", "sssf", [secret.text, "trim", "gain", "-4.5"]),
            ("/trellis/set", "ssss", [secret.text, "tone1", "waveform", "square"]),
            ("/trellis/bypass", "ssT", [secret.text, "boost"]),
        ]
        // Each oscsend is a client of its own, and an add runs as a job: the next message
        // goes once the session shows what the socket's session showed after the same edit.
        for (step, (path, types, arguments)) in messages.enumerated() {
            try oscsend(server.port, path, types, arguments)
            let deadline = Date().addingTimeInterval(20)
            while try state({ try viaOSC.ask($0) }) != after[step], Date() < deadline { usleep(20_000) }
        }

        #expect(try socket.request("list") == viaOSC.ask("list"))
        for node in ["tone1", "trim", "boost"] {
            #expect(try socket.request("params \(node)") == viaOSC.ask("params \(node)"))
        }
        let a = viaSocket.folder + "/a.yaml", b = viaOSC.folder + "/b.yaml"
        _ = try socket.request("save \(a)")
        _ = try viaOSC.ask("save \(b)")
        #expect(try String(contentsOfFile: a, encoding: .utf8) == String(contentsOfFile: b, encoding: .utf8))
        #expect(viaOSC.graph.nodes.first { $0.name == "boost" }?.unit.isBypassed == true)
    }
}
