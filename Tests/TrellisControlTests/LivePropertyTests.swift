import Foundation
import Testing
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    /// A stereo 0.5 sine through the built-in look-ahead limiter (5 ms attack).
    static let limiterSession = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        nodes:
          tone1: { unit: tone, channels: 2, parameters: { freq: 1000, amp: 0.5 } }
          lim: limiter
          out: { unit: output, channels: 2 }
        connections:
          - tone1 -> lim -> out
        """

    /// The event lines that arrive within `seconds`, until one holds `text`.
    /// Those that came with replies first.
    static func events(_ client: ControlClient, until text: String, within seconds: Double = 3) -> [String] {
        var lines = client.takeEvents()
        let deadline = Date().addingTimeInterval(seconds)
        while !lines.contains(where: { $0.contains(text) }), Date() < deadline,
              let line = try? client.readLine(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
            lines.append(line)
        }
        return lines
    }

    @Test("property get answers the running unit's values, in the scope and bus asked for")
    func propertyGet() throws {
        let rig = try LiveRig(session: Self.limiterSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("property get lim latency") == "ok 0.005")
        #expect(try client.request("property get lim stream-format input 0") == "ok 48000 Hz, 2 ch, float32")
        #expect(try client.request("property get lim StreamFormat output") == "ok 48000 Hz, 2 ch, float32")
        #expect(try client.request("property get lim bus-count input") == "ok 1")
        let listing = try client.request("property lim")
        #expect(listing.contains("latency=0.005") && listing.contains("stream-format:input:0=") && listing.contains("bypass=false"), "\(listing)")
        let unknown = try client.request("property get lim latensy")
        #expect(unknown.hasPrefix("error UNKNOWN_PROPERTY") && unknown.contains("latency"), "\(unknown)")
        let readOnly = try client.request("property set lim latency 0.1")
        #expect(readOnly.hasPrefix("error READ_ONLY"), "\(readOnly)")
        let running = try client.request("property set lim bus-count 2 input")
        #expect(running.hasPrefix("error") && running.contains("lim"), "\(running)")
    }

    @Test("a listener hears the limiter's latency change when its look-ahead changes, and the graph keeps it aligned")
    func latencyListener() throws {
        let rig = try LiveRig(session: Self.limiterSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("watch events=property").hasPrefix("ok events=property"))
        #expect(try client.request("set lim attack 10") == "ok 10")
        let events = Self.events(client, until: "event property lim latency")
        #expect(events.contains("event property lim latency 0.01"), "\(events)")
        #expect(try client.request("property get lim latency") == "ok 0.01")
        let program = try client.request("program")
        #expect(program.contains("latency 480"), "\(program)")
    }

    @Test("property set changes bypass and preset, and listeners hear each")
    func propertySetAndListen() throws {
        let rig = try LiveRig(session: Self.limiterSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("add flanger lv2:http://drobilla.net/plugins/mda/ThruZero") == "ok flanger")
        #expect(try client.request("watch events=property").hasPrefix("ok events=property"))
        #expect(try client.request("property set lim bypass on") == "ok true")
        #expect(Self.events(client, until: "lim bypass").contains("event property lim bypass true"))
        let reading = try Self.reading(client, "out")
        #expect(abs(try #require(level("peak", in: reading)) - decibels(0.5)) < 0.05, "bypassed, the tone is not delayed or limited: \(reading)")
        #expect(try client.request("property set flanger preset \"Chorus Doubler\"") == "ok Chorus Doubler")
        let events = Self.events(client, until: "flanger preset")
        #expect(events.contains("event property flanger preset \"Chorus Doubler\""), "\(events)")
        #expect(try client.request("property get flanger preset") == "ok Chorus Doubler")
    }
}
