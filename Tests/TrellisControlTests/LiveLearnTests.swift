import Foundation
import Testing
import TrellisControl
import TrellisSession
import TrellisTestSupport

extension LiveControlTests {
    /// A MIDI file of controller 7 on channel 1: 100 at 0 s, 0 at 1 s, 127 at 2 s; played
    /// out of `ctl_out`, which the test connects back into `ctl_in` through JACK.
    static let controllerSong: [UInt8] = {
        let track = TestMIDIFile.track([(0, [0xB0, 7, 100]), (960, [0xB0, 7, 0]), (1920, [0xB0, 7, 127])])
        return TestMIDIFile.header(format: 0, tracks: 1, division: 480) + track
    }()

    static let learnSession = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        jack: { outputs: [out_1], midi-inputs: [ctl_in], midi-outputs: [ctl_out] }
        nodes:
          song: { unit: midi-player, file: cc.mid }
          tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
          trim: { unit: gain, channels: 1, parameters: { gain: -6 } }
          out: { unit: output, channels: 1 }
        connections: [song -> ctl_out, tone1 -> trim -> out]
        """

    static func learnRig() throws -> LiveRig {
        let rig = try LiveRig(session: learnSession) { folder in
            try Data(controllerSong).write(to: URL(fileURLWithPath: folder + "/cc.mid"))
        }
        try JACKTool.waitForPort("trellis:ctl_in", server: rig.serverName)
        #expect(try JACKTool.run(["jack_connect", "trellis:ctl_out", "trellis:ctl_in"], server: rig.serverName) == 0)
        return rig
    }

    /// Asks `get` until its reply is `want`, for up to `seconds`.
    static func value(_ client: ControlClient, _ line: String, becomes want: String, within seconds: Double = 3) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var reply = ""
        repeat {
            reply = try client.request(line)
            if reply == want { break }
            usleep(20_000)
        } while Date() < deadline
        return reply
    }

    @Test("learn maps the next controller moved to a parameter, which then follows it over the range given; the mapping is saved and loads again")
    func learnController() throws {
        let rig = try Self.learnRig()
        defer { rig.stop() }
        let learner = try rig.client(), player = try rig.client()
        try learner.send("learn trim gain -40 0")
        usleep(100_000)
        #expect(try player.request("transport play").hasPrefix("ok rolling=true"))
        let learned = try learner.readReply(timeout: 5)
        #expect(learned == "ok trim.gain cc=7 channel=1 port=ctl_in", "\(learned ?? "nothing")")
        #expect(try Self.value(player, "get trim gain", becomes: "ok -40") == "ok -40")
        #expect(try Self.value(player, "get trim gain", becomes: "ok 0") == "ok 0")
        #expect(try player.request("learn") == "ok trim.gain cc=7 channel=1 port=ctl_in")
        let saved = rig.folder + "/saved.yaml"
        #expect(try player.request("save \(saved)").hasPrefix("ok"))
        let document = try SessionParser.parse(String(contentsOfFile: saved, encoding: .utf8), file: saved)
        let mapping = try #require(document.midiMap.first)
        #expect(mapping.controller == 7 && mapping.channel == 1 && mapping.port == "ctl_in" && mapping.node == "trim" && mapping.parameter == "gain")
        #expect(mapping.minimum == "-40" && mapping.maximum == "0")
        #expect(try player.request("load \(saved)").hasPrefix("ok"))
        #expect(try player.request("learn") == "ok trim.gain cc=7 channel=1 port=ctl_in")
        #expect(try player.request("learn clear trim") == "ok")
        #expect(try player.request("learn") == "ok")
    }

    @Test("a session's midi-map moves a bypass, and learn with no controller moving times out having mapped nothing")
    func midiMapBypass() throws {
        let rig = try LiveRig(session: Self.learnSession + "\nmidi-map:\n  - { cc: 7, channel: 1, to: trim.bypass }\n", arguments: ["--file-timeout", "2"]) { folder in
            try Data(Self.controllerSong).write(to: URL(fileURLWithPath: folder + "/cc.mid"))
        }
        defer { rig.stop() }
        try JACKTool.waitForPort("trellis:ctl_in", server: rig.serverName)
        #expect(try JACKTool.run(["jack_connect", "trellis:ctl_out", "trellis:ctl_in"], server: rig.serverName) == 0)
        let client = try rig.client()
        #expect(try client.request("transport play").hasPrefix("ok"))
        #expect(try Self.value(client, "property get trim bypass", becomes: "ok true") == "ok true")
        #expect(try Self.value(client, "property get trim bypass", becomes: "ok false") == "ok false")
        #expect(try Self.value(client, "property get trim bypass", becomes: "ok true") == "ok true")
        #expect(try client.request("transport stop").hasPrefix("ok"))
        let waited = try client.request("learn trim gain", timeout: 5)
        #expect(waited == "error TIMEOUT learn trim gain did not finish within 2 s; no controller moved, and nothing was mapped", "\(waited)")
        #expect(try client.request("learn") == "ok trim.bypass cc=7 channel=1")
    }
}

extension LiveControlTests {
    @Test("a MIDI file player's song playing to its end is an eof event, and again after the transport goes back")
    func songEndEvent() throws {
        let rig = try Self.learnRig()
        defer { rig.stop() }
        let watcher = try rig.client(), client = try rig.client()
        #expect(try watcher.request("watch events=eof").hasPrefix("ok"))
        #expect(try client.request("transport play").hasPrefix("ok"))
        #expect(Self.events(watcher, until: "event eof song song ended", within: 4).contains("event eof song song ended"))
        #expect(try client.request("transport locate 1.5s").hasPrefix("ok"))
        #expect(Self.events(watcher, until: "event eof song song ended", within: 3).contains("event eof song song ended"))
        // Moving the song's start later on the transport plays its end again.
        #expect(try client.request("set song start 1") == "ok 1")
        #expect(Self.events(watcher, until: "event eof song song ended", within: 3).contains("event eof song song ended"))
    }
}
