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

    /// How often the CPUs entered their polling idle state (cpuidle's POLL, which a CPU
    /// latency request of 0 µs leaves as the only one), or nil without cpuidle.
    static func pollingIdleEntries() -> Int? {
        var total = 0, found = false
        for cpu in 0..<Int(sysconf(Int32(_SC_NPROCESSORS_CONF))) {
            let folder = "/sys/devices/system/cpu/cpu\(cpu)/cpuidle/state0/"
            guard let name = try? String(contentsOfFile: folder + "name", encoding: .utf8), name.hasPrefix("POLL"),
                  let usage = try? String(contentsOfFile: folder + "usage", encoding: .utf8),
                  let entries = Int(usage.trimmingCharacters(in: .whitespacesAndNewlines))
            else { continue }
            total += entries
            found = true
        }
        return found ? total : nil
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

    @Test("live on a real-time server, cycles keep idle CPUs responsive (idle CPUs poll) while the program runs an isolated plugin, and stop once it no longer does")
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
        // While a cycle holds the request, a CPU that goes idle polls: after the bridge
        // replies, its CPU waits out the rest of the cycle so.
        if let before = Self.pollingIdleEntries() {
            usleep(500_000)
            #expect(try #require(Self.pollingIdleEntries()) > before, "idle CPUs polled during cycles")
        }
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
