import Foundation
import Glibc
import Testing
import TrellisControl

@Suite("A control plane no client can stall")
struct FairnessTests {
    @Test("50 clients are answered within 100 ms at the 99th percentile while another floods commands")
    func fairUnderFlood() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let flooder = try rig.client()
        let stop = LockedFlag()
        // The flooder sends as fast as the socket takes lines and reads what comes back.
        let line = Array(String(repeating: "params tone1\n", count: 2_000).utf8)
        let sender = Thread {
            while !stop.isSet { if flooder.sendAvailable(line[...]) == 0 { usleep(1_000) } }
        }
        let drainer = Thread { while !stop.isSet, (try? flooder.readLine(timeout: 1)) != nil {} }
        sender.start()
        drainer.start()
        usleep(300_000)

        let clients = try (0..<50).map { _ in try rig.client() }
        let latencies = LockedList()
        let group = DispatchGroup()
        for client in clients {
            group.enter()
            Thread {
                defer { group.leave() }
                for _ in 0..<10 {
                    let start = Date()
                    let reply = (try? client.request("get trim gain", timeout: 20)) ?? "none"
                    let milliseconds = Date().timeIntervalSince(start) * 1000
                    latencies.append(reply == "ok 0" ? String(milliseconds) : "failed: \(reply)")
                    usleep(5_000)
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        stop.set()
        let values = latencies.items.compactMap(Double.init).sorted()
        #expect(values.count == 500, "\(latencies.items.filter { $0.hasPrefix("failed") }.prefix(3))")
        let p99 = values[min(values.count - 1, values.count * 99 / 100)]
        print("fairness: 50 clients beside a flooder, median \(values[values.count / 2]) ms, 99th percentile \(p99) ms")
        #expect(p99 < 100, "99th percentile \(p99) ms")
    }

    @Test("a session whose player reads a FIFO is refused at once and control goes on")
    func fifoPlayer() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        #expect(mkfifo(rig.folder + "/pipe.wav", 0o600) == 0)
        try write("""
            version: 1
            nodes:
              deck: { unit: player, file: pipe.wav }
              out: output
            connections: [deck -> out]
            """, to: "fifo.yaml", in: rig.folder)
        let started = Date()
        let reply = try rig.ask("load fifo.yaml")
        #expect(reply.hasPrefix("error SESSION") && reply.contains("FIFO"), "\(reply)")
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(try rig.ask("hello").hasPrefix("ok"))
    }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
