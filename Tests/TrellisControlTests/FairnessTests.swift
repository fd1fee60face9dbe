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

    @Test("20 pipelined adds of unknown plugins with long URIs leave another client's status under 100 ms",
          arguments: [4_000, 60_000])
    func slowCommandsTakeTurns(uriLength: Int) throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        // A busy machine can hold any thread 100 ms: a round over the bound is measured again.
        var rounds: [[Int]] = []
        for round in 0..<3 {
            let latencies = try statusLatencies(beside: 20, addsOf: uriLength, round: round, in: rig)
            rounds.append(latencies.map { Int($0) })
            if latencies.max()! < 100 { break }
        }
        print("fairness: status beside 20 pipelined adds of \(uriLength)-byte URIs: \(rounds) ms")
        #expect(rounds.last!.max()! < 100, "\(rounds) ms")
    }

    /// Sends `count` adds of unknown plugins on one connection without waiting, then
    /// times five `status` requests on another; every add must be answered with an error.
    private func statusLatencies(beside count: Int, addsOf uriLength: Int, round: Int, in rig: ControlRig) throws -> [Double] {
        let slow = try rig.client(), other = try rig.client()
        _ = try other.request("status")
        let uri = "http://example.org/" + String(repeating: "q", count: uriLength)
        var bytes = Array((0..<count).map { "add slow\(round)x\($0) lv2:\(uri)\n" }.joined().utf8)[...]
        while !bytes.isEmpty {
            let sent = slow.sendAvailable(bytes)
            bytes = bytes.dropFirst(sent)
            if sent == 0 { usleep(1_000) }
        }
        var latencies: [Double] = []
        for _ in 0..<5 {
            let start = Date()
            let reply = try other.request("status", timeout: 30)
            latencies.append(Date().timeIntervalSince(start) * 1000)
            #expect(reply.hasPrefix("ok"), "\(reply.prefix(200))")
        }
        for index in 0..<count {
            let reply = try slow.readLine(timeout: 60) ?? "none"
            #expect(reply.hasPrefix("error"), "add \(index): \(reply.prefix(200))")
        }
        return latencies
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
