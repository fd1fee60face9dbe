import Foundation
import Glibc
import Testing
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    static let cpuLatencyDevice = "/dev/cpu_dma_latency"

    /// The kernel's CPU latency target now, in µs: the smallest value any open request holds.
    static func kernelCPULatency() throws -> Int32 {
        let descriptor = open(cpuLatencyDevice, O_RDONLY)
        guard descriptor >= 0 else { throw TestFailure("cannot read \(cpuLatencyDevice): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var value: Int32 = -1
        guard read(descriptor, &value, 4) == 4 else { throw TestFailure("short read from \(cpuLatencyDevice)") }
        return value
    }

    /// The `cpuLatency` of a JSON `status`, once it is not `before` (the live upkeep sets
    /// it within a few ms of the program changing), or after 3 s.
    static func cpuLatencyWord(_ rig: LiveRig, changedFrom before: String? = nil) throws -> String {
        let client = try rig.client()
        #expect(try client.request("mode json") == "ok json")
        let deadline = Date().addingTimeInterval(3)
        var word = ""
        repeat {
            let reply = try client.request(#"{"id": 1, "command": "status"}"#)
            let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
            word = (object?["result"] as? [String: Any])?["cpuLatency"] as? String ?? ""
            if !word.isEmpty, word != before { break }
            usleep(20_000)
        } while Date() < deadline
        return word
    }

    /// Whether the kernel's CPU latency target reads 0 µs at some moment before `seconds`
    /// pass. A request held only around cycles holds it a few percent of the time, so
    /// the device is read every 50 µs; the reads see it whether or not a CPU is idle,
    /// which a busy machine's CPUs seldom are.
    static func kernelCPULatencyReadsZero(within seconds: Double) throws -> Bool {
        let descriptor = open(cpuLatencyDevice, O_RDONLY)
        guard descriptor >= 0 else { throw TestFailure("cannot read \(cpuLatencyDevice): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            var value: Int32 = -1
            guard pread(descriptor, &value, 4, 0) == 4 else { throw TestFailure("short read from \(cpuLatencyDevice)") }
            if value == 0 { return true }
            usleep(50)
        } while Date() < deadline
        return false
    }

    /// What this machine lets a session ask: `asked` where jackd runs real-time and this
    /// user may write the device, refused where it may not, not asked off real time.
    static func expectedWhenAsked(_ rig: LiveRig, asked: String) throws -> String {
        let jackLog = try String(contentsOfFile: rig.folder + "/jackd.log", encoding: .utf8)
        guard jackLog.contains("realtime mode") else { return "not-asked" }
        return access(cpuLatencyDevice, W_OK) == 0 ? asked : "refused"
    }

    static func cpuLatencySession(isolated: Bool) -> String {
        """
        version: 1
        nodes:
          tone: { unit: tone, channels: 1 }
          fx: { lv2: "http://lv2plug.in/plugins/eg-amp", isolate: \(isolated ? "yes" : "no") }
          out: { unit: output, channels: 1 }
        connections:
          - tone -> fx -> out

        """
    }

    @Test("live on a real-time server, cycles hold the kernel's CPU latency target at 0 µs while the program runs an isolated plugin, and let go once it no longer does")
    func cpuLatencyFollowsTheProgram() throws {
        let rig = try LiveRig(session: Self.cpuLatencySession(isolated: true))
        defer { rig.stop() }
        let expected = try Self.expectedWhenAsked(rig, asked: "cycles")
        let word = try Self.cpuLatencyWord(rig, changedFrom: "released")
        #expect(word == expected)
        if expected == "refused" {
            #expect(rig.log(containing: "idle CPUs cannot be kept responsive").contains(Self.cpuLatencyDevice))
        }
        guard expected == "cycles" else { return }
        // The request is held from just before each cycle to its end.
        #expect(try Self.kernelCPULatencyReadsZero(within: 3), "the kernel's target read 0 µs during cycles")
        #expect(try rig.ask("remove fx").hasPrefix("ok"))
        #expect(try Self.cpuLatencyWord(rig, changedFrom: "cycles") == "released")
    }

    @Test("live, jack: cpu-latency: auto asks nothing for a one-thread program without isolated plugins; hold holds for the whole run; off never asks",
          arguments: [("auto", false, "released"), ("hold", false, "held"), ("off", true, "not-asked")])
    func cpuLatencyPolicy(policy: String, isolated: Bool, expected: String) throws {
        let session = Self.cpuLatencySession(isolated: isolated) + "jack: { cpu-latency: \(policy) }\n"
        let rig = try LiveRig(session: session, arguments: ["--threads", "1"])
        defer { rig.stop() }
        let whenAsked = try Self.expectedWhenAsked(rig, asked: expected)
        // The first status may come before the first upkeep pass: give it time to change.
        usleep(200_000)
        let word = try Self.cpuLatencyWord(rig)
        #expect(word == (policy == "off" ? "not-asked" : whenAsked))
        if word == "held" { #expect(try Self.kernelCPULatency() == 0) }
    }
}
