import Foundation
import Testing
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    @Test("a watcher hears a plugin's log line within 100 ms of the edit that made it, and trellis run logs it")
    func watchHearsPluginLog() throws {
        let rig = try LiveRig(session: """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
              fx: { lv2: \(TestPlugins.loggerURI) }
              out: { unit: output, channels: 1 }
            connections: [tone1 -> fx, fx -> out]
            """, environment: ["LV2_PATH": try TestPlugins.lv2Path()])
        defer { rig.stop() }
        let watcher = try rig.client(), client = try rig.client()
        #expect(try watcher.request("watch events=log,warning").hasPrefix("ok events=log,warning"))
        #expect(try client.request("set fx mark 9").hasPrefix("ok"))
        let set = Date()
        let line = try #require(try watcher.readLine(timeout: 2))
        let elapsed = Date().timeIntervalSince(set)
        #expect(line == "event log node fx (lv2:\(TestPlugins.loggerURI)) logs note: mark 9")
        #expect(elapsed < 0.1, "the line came \(Int(elapsed * 1000)) ms after the edit")

        #expect(try client.request("set fx mark -2").hasPrefix("ok"))
        let warning = try #require(try watcher.readLine(timeout: 2))
        #expect(warning == "event warning node fx (lv2:\(TestPlugins.loggerURI)) logs warning: mark -2 is below zero")

        let expected = "node fx (lv2:\(TestPlugins.loggerURI)) logs note: mark 9"
        let log = rig.log(containing: expected)
        #expect(log.contains(expected), "\(log)")
    }

    @Test("a watcher hears the MIDI a plugin sends: eg-fifths' note and its fifth, at one sample time")
    func watchHearsSentMIDI() throws {
        let rig = try LiveRig(session: """
            version: 1
            jack:
              client: trellis
              midi-inputs: [keys]
            nodes:
              fifths: { lv2: http://lv2plug.in/plugins/eg-fifths }
              piano: { lv2: http://drobilla.net/plugins/mda/EPiano }
              out: output
            connections: [keys -> fifths, fifths -> piano, piano -> out]
            """)
        defer { rig.stop() }
        let watcher = try rig.client()
        #expect(try watcher.request("watch events=midi").hasPrefix("ok events=midi"))
        let sequencer = try JACKTool(sequencerArguments, server: rig.serverName, folder: rig.folder)
        defer { sequencer.stop() }
        try JACKTool.waitForPort("seq:out", server: rig.serverName)
        #expect(try JACKTool.run(["jack_connect", "seq:out", "trellis:keys"], server: rig.serverName) == 0)
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(1.5)
        while Date() < deadline {
            // No event before the deadline ends the listening; it is not a failure.
            guard let line = try? watcher.readLine(timeout: max(0.05, deadline.timeIntervalSinceNow)) else { break }
            lines.append(line)
        }
        // "event midi node fifths (lv2:…) sent 90 3c 40 on out at 1.23 s"
        let prefix = "event midi node fifths (lv2:http://lv2plug.in/plugins/eg-fifths) sent "
        let sent = lines.compactMap { line -> (bytes: [Int], when: Substring)? in
            guard line.hasPrefix(prefix), let on = line.range(of: " on out at ") else { return nil }
            let bytes = line[line.index(line.startIndex, offsetBy: prefix.count)..<on.lowerBound].split(separator: " ").compactMap { Int($0, radix: 16) }
            return (bytes, line[on.upperBound...])
        }
        #expect(sent.count == lines.count, "every event is fifths' MIDI: \(lines)")
        let noteOns = sent.filter { $0.bytes.first == 0x90 }
        #expect(noteOns.count >= 4, "\(lines)")
        for pair in stride(from: 0, to: noteOns.count - 1, by: 2) {
            let (root, fifth) = (noteOns[pair], noteOns[pair + 1])
            #expect([60, 63].contains(root.bytes[1]), "\(root)")
            #expect(fifth.bytes[1] == root.bytes[1] + 7 && fifth.when == root.when, "\(root) then \(fifth)")
        }
    }
}
