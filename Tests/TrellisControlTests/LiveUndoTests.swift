import Foundation
import Testing
import TrellisAudioFile
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    /// Two tones mixed; a recorder takes the first one's path, which the edits leave alone.
    static let twoPathSession = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        nodes:
          tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
          trim: { unit: gain, channels: 1 }
          tone2: { unit: tone, channels: 1, parameters: { freq: 300, amp: 0.25 } }
          mix: { unit: mixer, inputs: 2, input-channels: 1 }
          out: { unit: output, channels: 2 }
        connections:
          - tone1 -> trim -> mix.0
          - tone2 -> mix.1
          - mix -> out
        recorders:
          take: { source: trim.0, file: take.wav }
        """

    @Test("undo takes back a parameter set, redo makes it again, and a fader's run of sets is one edit")
    func undoParameter() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("undo") == "error UNSUPPORTED undo: nothing to undo")
        #expect(try client.request("set trim gain -20") == "ok -20")
        #expect(try client.request("set trim gain -16") == "ok -16")
        #expect(try client.request("set trim gain -12") == "ok -12")
        #expect(try client.request("undo") == "ok undid set trim gain -12")
        #expect(try client.request("get trim gain") == "ok 0")
        let back = try Self.reading(client, "trim")
        #expect(abs(try #require(level("peak", in: back)) - decibels(0.5)) < 0.05, "\(back)")
        #expect(try client.request("redo") == "ok redid set trim gain -12")
        #expect(try client.request("get trim gain") == "ok -12")
        #expect(try client.request("redo") == "error UNSUPPORTED redo: nothing to redo")
    }

    @Test("undo takes back structural edits one at a time, and redo brings back the same unit")
    func undoStructure() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("add amp lv2:http://lv2plug.in/plugins/eg-amp gain=-6") == "ok amp")
        #expect(try client.request("disconnect trim out ; connect trim amp ; connect amp out") == "ok")
        #expect(try client.request("set amp gain -3") == "ok -3")
        let through = try Self.reading(client, "out")
        #expect(abs(try #require(level("peak", in: through)) - (decibels(0.5) - 3)) < 0.05, "\(through)")
        #expect(try client.request("undo") == "ok undid set amp gain -3")
        #expect(try client.request("undo") == "ok undid disconnect trim out ; connect trim amp ; connect amp out")
        let direct = try Self.reading(client, "out")
        #expect(abs(try #require(level("peak", in: direct)) - decibels(0.5)) < 0.05, "\(direct)")
        #expect(try client.request("undo").hasPrefix("ok undid add amp"))
        #expect(!(try client.request("list")).contains("amp"))
        #expect(try client.request("redo").hasPrefix("ok redid add amp"))
        #expect(try client.request("redo").hasPrefix("ok redid disconnect"))
        #expect(try client.request("redo") == "ok redid set amp gain -3")
        let again = try Self.reading(client, "out")
        #expect(abs(try #require(level("peak", in: again)) - (decibels(0.5) - 3)) < 0.05, "\(again)")
        // A removed node comes back with its values.
        #expect(try client.request("remove amp") == "ok")
        #expect(try client.request("undo") == "ok undid remove amp")
        #expect(try client.request("get amp gain") == "ok -3")
        let restored = try Self.reading(client, "out")
        #expect(abs(try #require(level("peak", in: restored)) - (decibels(0.5) - 3)) < 0.05, "\(restored)")
        // A new edit forgets what could be redone.
        #expect(try client.request("undo") == "ok undid set amp gain -3")
        #expect(try client.request("bypass trim on") == "ok on")
        #expect(try client.request("redo") == "error UNSUPPORTED redo: nothing to redo")
    }

    @Test("undo and redo of edits on one path leave another path's audio unbroken")
    func undoIsGlitchFree() throws {
        let rig = try LiveRig(session: Self.twoPathSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("record start take overwrite").hasPrefix("ok"))
        usleep(100_000)
        #expect(try client.request("add g2 gain channels=1 gain=-6") == "ok g2")
        #expect(try client.request("disconnect tone2 mix.1 ; connect tone2 g2 ; connect g2 mix.1") == "ok")
        for _ in 0..<5 {
            #expect(try client.request("undo").hasPrefix("ok undid"))
            usleep(30_000)
            #expect(try client.request("redo").hasPrefix("ok redid"))
            usleep(30_000)
        }
        #expect(try client.request("undo").hasPrefix("ok undid"))
        #expect(try client.request("undo").hasPrefix("ok undid add g2"))
        usleep(100_000)
        #expect(try client.request("record stop").hasPrefix("ok"))
        let samples = try AudioFileReader(path: rig.folder + "/take.wav").readAll()[0]
        #expect(samples.count > 4800, "\(samples.count) frames")
        // A 1 kHz sine obeys x[n+1] = 2cos(w)x[n] - x[n-1]; a dropped or repeated block does not.
        let c = Float(2 * cos(2 * Double.pi * 1000 / 48_000))
        var worst: Float = 0
        for n in 1..<(samples.count - 1) { worst = max(worst, abs(samples[n + 1] - c * samples[n] + samples[n - 1])) }
        #expect(worst < 1e-3, "the untouched path broke by \(worst)")
    }
}
