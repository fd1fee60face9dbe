import Foundation
import Testing
import TrellisControl
import TrellisSession

@Suite("Robustness of the control server")
struct RobustnessTests {
    @Test("1,000 malformed lines get 1,000 errors and leave the session as it was")
    func malformedLines() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let before = rig.folder + "/before.yaml", after = rig.folder + "/after.yaml"
        #expect(try rig.ask("save \(before)") == "ok \(before)")
        let client = try rig.client()
        var generator = MalformedLines(seed: 9)
        var bytes: [UInt8] = []
        for _ in 0..<1000 { bytes += generator.line() + [10] }
        let payload = bytes
        let sender = Thread { try? client.sendRaw(payload) }
        sender.start()
        var replies: [String] = []
        while replies.count < 1000, let line = try client.readLine() { replies.append(line) }
        #expect(replies.count == 1000)
        #expect(replies.allSatisfy { $0.hasPrefix("error ") })
        #expect(try client.request("hello").hasPrefix("ok trellis-control"))
        #expect(try rig.ask("save \(after)") == "ok \(after)")
        #expect(try String(contentsOfFile: before, encoding: .utf8) == String(contentsOfFile: after, encoding: .utf8))
        #expect(rig.graph.nodes.map(\.name) == ["tone1", "trim", "out"])
    }

    @Test("20 clients at once are all answered while another never reads its replies")
    func concurrentClientsAndOneThatNeverReads() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let hung = try rig.client()
        // Far more replies than its outbox holds: the server stops reading from it.
        let flood = Array(String(repeating: "params tone1\n", count: 50_000).utf8)
        var offset = 0
        let floodEnd = Date().addingTimeInterval(2)
        while offset < flood.count && Date() < floodEnd {
            let sent = hung.sendAvailable(flood[offset...])
            if sent == 0 { usleep(10_000) }
            offset += sent
        }
        #expect(offset < flood.count, "the server kept reading from a client that never reads")

        let clients = try (0..<20).map { _ in try rig.client() }
        let failures = LockedList()
        let group = DispatchGroup()
        for (index, client) in clients.enumerated() {
            group.enter()
            Thread {
                defer { group.leave() }
                for round in 0..<25 {
                    let value = -Double((index * 25 + round) % 100)
                    do {
                        let reply = try client.request("set trim gain \(Int(value))", timeout: 20)
                        if reply != "ok \(Int(value))" { failures.append("client \(index): \(reply)") }
                    } catch { failures.append("client \(index): \(error)") }
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(failures.items.isEmpty, "\(failures.items.prefix(3))")
        hung.close()
    }
}

final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ item: String) { lock.withLock { list.append(item) } }
    var items: [String] { lock.withLock { list } }
}
