import Foundation
import Testing
@testable import TrellisControl

/// What a desk asks the control protocol for: the whole graph, the units, the takes, and
/// events when a parameter or the graph changes, whoever changed it.
@Suite("The desk's commands and events")
struct DeskProtocolTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("describe answers every node with its buses and kind, the connections and the recorders")
    func describe() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let client = try rig.client()
        _ = try client.request("mode json")
        let reply = try json(try client.request(#"{"id": 1, "command": "describe"}"#))
        let result = try #require(reply["result"] as? [String: Any])
        let nodes = try #require(result["nodes"] as? [[String: Any]])
        #expect(nodes.map { $0["name"] as? String } == ["tone1", "trim", "out"])
        let trim = nodes[1]
        #expect(trim["unit"] as? String == "gain" && trim["triple"] as? String == "aufx:gain:trls")
        #expect((trim["inputs"] as? [[String: Any]])?.first?["channels"] as? Double == 1)
        #expect((trim["outputs"] as? [[String: Any]])?.count == 1)
        let connections = try #require(result["connections"] as? [[String: Any]])
        #expect(connections.map { "\($0["from"]!)->\($0["to"]!)" } == ["tone1.0->trim.0", "trim.0->out.0"])
    }

    @Test("units lists the units add takes, and narrows by any part of a name")
    func units() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let all = try rig.ask("units")
        #expect(all.contains(" gain ") && all.contains(" mixer "), "\(all)")
        let some = try rig.ask("units LIMIT")
        #expect(some == "ok limiter", "\(some)")
    }

    @Test("a parameter set by one client reaches another that watches parameter events, with its value")
    func parameterEvents() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let watcher = try rig.client()
        _ = try watcher.request("mode json")
        _ = try watcher.request(#"{"id": "w", "command": "watch events=parameter"}"#)
        #expect(try rig.ask("set trim gain -7.5") == "ok -7.5")
        let event = try json(try #require(try watcher.readLine(timeout: 5)))
        #expect(event["event"] as? String == "parameter")
        let data = try #require(event["data"] as? [String: Any])
        #expect(data["node"] as? String == "trim" && data["parameter"] as? String == "gain" && data["value"] as? Double == -7.5)
    }

    @Test("a watch without events= hears no parameter events")
    func parameterEventsAreAskedFor() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let watcher = try rig.client()
        _ = try watcher.request("watch")
        _ = try rig.ask("set trim gain -3")
        do {
            let line = try watcher.readLine(timeout: 0.3)
            Issue.record("a watch without events= heard \(line ?? "its end")")
        } catch {
            #expect("\(error)".contains("nothing came"), "\(error)")
        }
    }

    @Test("an edit by one client is an edit event for another, naming the command")
    func editEvents() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let watcher = try rig.client()
        _ = try watcher.request("watch events=edit")
        #expect(try rig.ask("add boost gain channels=1") == "ok boost")
        #expect(try watcher.readLine(timeout: 5) == "event edit add boost gain")
        _ = try rig.ask("undo")
        #expect(try watcher.readLine(timeout: 5) == "event edit undo")
    }

    @Test("status peek answers as status does, and status takes no other word")
    func statusPeek() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        #expect(try rig.ask("status peek").hasPrefix("ok rate=48000 block=256 nodes=3"))
        let refused = try rig.ask("status all")
        #expect(refused.hasPrefix("error SYNTAX status takes no word but peek"), "\(refused)")
    }

    @Test("params names each parameter's hints")
    func hints() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let client = try rig.client()
        _ = try client.request("mode json")
        let reply = try json(try client.request(#"{"id": 1, "command": "params tone1"}"#))
        let parameters = try #require(reply["result"] as? [[String: Any]])
        let hints = Dictionary(uniqueKeysWithValues: parameters.map { ($0["parameter"] as! String, $0["hints"] as! [String]) })
        #expect(hints["waveform"]?.contains("enumeration") == true)
        #expect(hints["freq"]?.contains("logarithmic") == true)
    }

    @Test("takes lists a recorder's file and its numbered takes, in take order, and nothing else in the folder")
    func takes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["mix.wav", "mix-2.wav", "mix-10.wav", "mix-02.wav", "mix-x.wav", "mixer.wav", "mix-3.flac"] {
            try write("", to: name, in: folder)
        }
        #expect(ControlDispatcher.takeFiles(of: folder + "/mix.wav").map { ($0 as NSString).lastPathComponent } == ["mix.wav", "mix-2.wav", "mix-10.wav"])
    }

    @Test("meter levels are written as printf's %.2f writes them")
    func twoDecimals() {
        var generator = SystemRandomNumberGenerator()
        var values: [Float] = [-160, -0.001, 0, 0.004, -6.0206, 12.345, 99.999, -0.0049]
        values += (0..<5000).map { _ in Float.random(in: -200...40, using: &generator) }
        for value in values {
            #expect(MeterReading.twoDecimals(value) == String(format: "%.2f", value), "\(value)")
        }
    }

    @Test("a meter event's JSON line is JSON carrying the reading's levels to two decimals, and a recorder's state")
    func meterEventJSON() throws {
        let readings = [
            MeterReading(bus: "eq1.0", peak: [-3.0103, -160], average: [-6.02, -159.996]),
            MeterReading(bus: "take \"1\"", peak: [0.004], average: [-0.005], recorder: ("recording", 1.5)),
        ]
        for reading in readings {
            let line = reading.eventJSON(id: #""meters""#)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(object["id"] as? String == "meters" && object["event"] as? String == "meter")
            let data = try #require(object["data"] as? [String: Any])
            #expect(data["bus"] as? String == reading.bus)
            for (key, levels) in [("peak", reading.peak), ("average", reading.average)] {
                let sent = try #require(data[key] as? [Double])
                #expect(sent == levels.map { Double(String(format: "%.2f", $0))! }, "\(key): \(sent)")
            }
            #expect(data["state"] as? String == reading.recorder?.state)
            #expect(data["seconds"] as? Double == reading.recorder?.seconds)
        }
    }

    @Test("the web login token and cookie are HMAC-SHA-256 of the secret, as RFC 4231's test case 2 computes it")
    func webToken() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
        #expect(ControlSecret.hmacHex(key: "Jefe", message: "what do ya want for nothing?")
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let secret = ControlSecret.random()
        #expect(secret.webToken == ControlSecret.hmacHex(key: secret.text, message: "trellis web login"))
        #expect(secret.webToken != secret.webCookie && secret.webToken.count == 64)
    }
}

@Suite("meter loudness requests")
struct MeterLoudnessRequestTests {
    @Test("meter BUS loudness takes only reset after it; anything else is a syntax error naming the forms")
    func syntax() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let reply = try rig.ask("meter trim loudness now")
        #expect(reply.hasPrefix("error SYNTAX"), "\(reply)")
        #expect(reply.contains("meter BUS loudness reset"), "\(reply)")
        #expect(try rig.ask("meter nowhere loudness").hasPrefix("error "))
    }
}
