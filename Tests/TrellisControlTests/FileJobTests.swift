import Foundation
import Glibc
import Testing
import TrellisControl
import TrellisSession

/// A session file that takes seconds to read: 15 MB of comment lines before a graph of
/// two nodes, as a session on a slow disk would.
private func writeLargeSession(in folder: String) throws {
    let padding = String(repeating: "# " + String(repeating: "x", count: 76) + "\n", count: 190_000)
    try write("""
        version: 1
        \(padding)nodes:
          tone2: { unit: tone, channels: 1, parameters: { freq: 330 } }
          out: { unit: output, channels: 1 }
        connections: [tone2 -> out]
        """, to: "large.yaml", in: folder)
}

@Suite("Loads and saves run off the control queue")
struct FileJobTests {
    @Test("while a large session loads, other clients are answered at once, and the loader's next line after its reply")
    func othersServedDuringLoad() throws {
        // What is measured is the others' waits, not the load's: on a busy machine the
        // 15 MB load may take longer than the default 10 s file timeout.
        let rig = try ControlRig(fileTimeout: 120)
        defer { rig.stop() }
        try writeLargeSession(in: rig.folder)
        let loader = try rig.client()
        let other = try rig.client()
        try loader.send("load large.yaml")
        try loader.send("list")
        let replies = LockedList()
        let reader = Thread {
            for _ in 0..<2 { replies.append((try? loader.readReply(timeout: 60)).flatMap { $0 } ?? "none") }
        }
        reader.start()

        var latencies: [Double] = []
        let deadline = Date().addingTimeInterval(60)
        while replies.items.isEmpty && Date() < deadline {
            let start = Date()
            #expect(try other.request("hello").hasPrefix("ok trellis-control"))
            latencies.append(Date().timeIntervalSince(start) * 1000)
            usleep(10_000)
        }
        while replies.items.count < 2 && Date() < deadline { usleep(10_000) }
        let answered = replies.items
        #expect(answered.count == 2)
        #expect(answered.first?.hasPrefix("ok 2 nodes") == true, "\(answered)")
        #expect(answered.last?.contains("tone2") == true, "\(answered)")
        // The load took long enough for the other client to ask many times meanwhile.
        #expect(latencies.count >= 10, "\(latencies.count) requests during the load")
        let worst = latencies.max() ?? 0
        print("file jobs: \(latencies.count) requests answered during a load, worst \(worst) ms")
        #expect(worst < 100, "worst \(worst) ms")
    }

    @Test("a load that does not finish in time is answered TIMEOUT and leaves the session as it was")
    func loadTimesOut() throws {
        let rig = try ControlRig(fileTimeout: 0.2)
        defer { rig.stop() }
        try writeLargeSession(in: rig.folder)
        let client = try rig.client()
        let start = Date()
        let reply = try client.request("load large.yaml", timeout: 30)
        #expect(reply.hasPrefix("error TIMEOUT load \(rig.folder)/large.yaml did not finish within 0.2 s; the session is unchanged"), "\(reply)")
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(try client.request("hello").hasPrefix("ok"))
        // Long after the file was read, its session is still not the running one.
        sleep(6)
        let nodes = try client.request("list")
        #expect(nodes.contains("tone1") && !nodes.contains("tone2"), "\(nodes)")
    }

    @Test("a save given up before its rename leaves the old file and no temporary one")
    func abandonedSave() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try write(toneSession, to: "session.yaml", in: folder)
        let session = try SessionLoader.load(path: path, registry: controlRegistry(), options: .init(initialize: false))
        var document = session.document()
        document.graph.nodes.removeAll { $0.name == "trim" }
        document.graph.connections.removeAll()
        #expect(throws: SessionWriteError.self) { try SessionWriter.save(document, to: path, mayReplace: { false }) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == toneSession)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["session.yaml"])
    }
}
