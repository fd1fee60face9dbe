import Foundation
import Glibc
import Testing
import TrellisControl

/// A session on a NetJACK2 slave, across a veth pair between two network namespaces:
/// jackd2's own network backend carries its ports to the master's machine.
extension LiveControlTests {
    @Test("a session on a NetJACK2 slave makes the master's round trip in period x (latency + 1) frames, and resumes with its connections when the master returns with another period",
          .enabled(if: getuid() == 0, "network namespaces (ip netns) need root"))
    func netJACKRoundTrip() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pair = try NetJACKPair(folder: folder)
        defer { pair.tearDown() }
        try pair.startMaster(period: 256)
        try pair.startSlave(latency: 2)

        let session = try write(remoteSession, to: "remote.yaml", in: folder)
        let socket = folder + "/remote.sock"
        let trellis = try pair.spawn(on: .slave, [trellisExecutable.path, "run", session, "--control-socket", socket, "--threads", "1"], log: "trellis.log")
        try waitUntil("the session's ports connected on the slave", pair, trellis) { Self.linked(pair) }
        let first = try Self.roundTrip(pair)
        #expect(first == 256 * (2 + 1), "\(first)")

        pair.stopMaster()
        try pair.startMaster(period: 128)
        try pair.waitForSlaveOnMaster(seconds: 30)
        // A loaded machine takes its time to bring the slave back: the wait is generous.
        try waitUntil("the session running at 128 frames", pair, trellis, seconds: 45) {
            let status = (try? ControlClient(endpoint: .unix(path: socket)).request("status")) ?? ""
            return status.contains("period=128") && status.contains("jack=running")
        }
        try waitUntil("the session's ports connected again", pair, trellis, seconds: 45) { Self.linked(pair) }
        let second = try Self.roundTrip(pair)
        #expect(second == 128 * (2 + 1), "\(second)")
        #expect(trellis.isRunning, "trellis ended: \(pair.log("trellis.log"))")
    }

    /// A mono pass-through on the slave, between its network ports.
    private var remoteSession: String {
        """
        version: 1
        jack: { client: remote, inputs: [in_1], outputs: [out_1], connect: ["system:capture_1 -> in_1", "out_1 -> system:playback_1"] }
        nodes:
          in: { unit: input, channels: 1 }
          out: { unit: output, channels: 1 }
        connections:
          - in -> out
        """
    }

    private static func linked(_ pair: NetJACKPair) -> Bool {
        let lines = pair.ports(on: .slave, connections: true) ?? []
        return jackPeers(of: "remote:in_1", inListing: lines)?.contains("system:capture_1") == true
            && jackPeers(of: "remote:out_1", inListing: lines)?.contains("system:playback_1") == true
    }

    /// What jack_iodelay measures on the master, through the slave's ports: the value it
    /// reports three times running (a measurement across an xrun differs and is not taken).
    private static func roundTrip(_ pair: NetJACKPair) throws -> Int {
        let log = "iodelay-\(UUID().uuidString.prefix(4)).log"
        let meter = try pair.spawn(on: .master, ["stdbuf", "-o0", "jack_iodelay"], log: log)
        defer {
            // jack_iodelay sets no SIGTERM handler, and a test runner's children may inherit
            // SIGTERM ignored; a client killed outright is safe.
            kill(meter.processIdentifier, SIGKILL)
            meter.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(20)
        while pair.ports(on: .master)?.contains("jack_delay:in") != true {
            guard Date() < deadline else { throw TestFailure("jack_iodelay did not register its ports: \(pair.log(log))") }
            usleep(100_000)
        }
        try pair.run(on: .master, ["jack_connect", "jack_delay:out", "slave:to_slave_1"])
        try pair.run(on: .master, ["jack_connect", "slave:from_slave_1", "jack_delay:in"])
        while Date() < deadline {
            let values = pair.log(log).split(separator: "\n").compactMap { line -> Int? in
                guard line.contains("total roundtrip latency"), let number = line.split(separator: " ").first, let frames = Double(number) else { return nil }
                return Int(frames)
            }
            if values.count >= 3, let last = values.last, values.suffix(3).allSatisfy({ $0 == last }) { return last }
            usleep(200_000)
        }
        throw TestFailure("jack_iodelay measured no steady round trip within 20 s: \(pair.log(log).suffix(600))")
    }

    private func waitUntil(_ what: String, _ pair: NetJACKPair, _ trellis: Process, seconds: Double = 20, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard trellis.isRunning, Date() < deadline else {
                let events = pair.log("trellis.log").split(separator: "\n").filter { !$0.hasPrefix("DSP") }.suffix(20).joined(separator: "\n")
                throw TestFailure("waited for \(what): \(trellis.isRunning ? "timed out" : "trellis ended"); trellis: \(events) slave: \(pair.log("slave.log").suffix(600))")
            }
            usleep(100_000)
        }
    }
}
