import Foundation
import Testing
import TrellisControl
import TrellisTestSupport

extension LiveControlTests {
    /// eg-metro into the output, a recorder on it, the transport stopped at 120 BPM.
    static let metronomeSession = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        transport: { tempo: 120, meter: 4/4 }
        nodes:
          metro: { lv2: http://lv2plug.in/plugins/eg-metro }
          out: { unit: output, channels: 1 }
        connections: [metro -> out]
        recorders:
          take: { source: metro.0, file: take.wav }
        """

    @Test("transport play starts eg-metro on the transport's first frame, a click every 24,000 frames; tempo 90 spaces them 32,000 from the next beat")
    func metronomeLive() throws {
        let rig = try LiveRig(session: Self.metronomeSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("record start take overwrite").hasPrefix("ok"))
        usleep(300_000)
        #expect(try client.request("transport play").hasPrefix("ok rolling=true frame=0 bars=1|1|0"))
        usleep(1_700_000)
        #expect(try client.request("transport tempo 90").contains("tempo=90"))
        usleep(2_600_000)
        #expect(try client.request("record stop").hasPrefix("ok"))
        let onsets = clickOnsets(try firstChannel(ofFile: rig.folder + "/take.wav"))
        let spacing = zip(onsets.dropFirst(), onsets).map { $0 - $1 }
        let change = try #require(spacing.firstIndex { $0 != 24_000 }, "\(spacing)")
        #expect(change >= 2, "\(spacing)")
        #expect(spacing[change] > 24_000 && spacing[change] <= 32_000, "the beat the tempo changed in: \(spacing)")
        let after = spacing[(change + 1)...]
        #expect(after.count >= 2 && after.allSatisfy { $0 == 32_000 }, "\(spacing)")
        // Nothing sounded before the transport rolled, and it rolled from a cycle's first
        // frame (changes apply there; the take began on one too): the first click is there.
        let first = try #require(onsets.first)
        #expect(first > 10_000 && first % 256 == 0, "\(onsets)")
    }

    @Test("transport shows and moves the clock in frames, seconds, bars|beats|ticks and SMPTE; status says where it is")
    func transportCommands() throws {
        let rig = try LiveRig(session: Self.metronomeSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("transport") == "ok rolling=false frame=0 bars=1|1|0 seconds=0.000 smpte=00:00:00:00 tempo=120 meter=4/4")
        #expect(try client.request("transport locate 2|1|0") == "ok rolling=false frame=96000 bars=2|1|0 seconds=2.000 smpte=00:00:02:00 tempo=120 meter=4/4")
        #expect(try client.request("transport locate 00:00:01:12").hasPrefix("ok rolling=false frame=71040 "))
        #expect(try client.request("transport locate 1.5s").hasPrefix("ok rolling=false frame=72000 bars=1|4|0"))
        #expect(try client.request("transport meter 3/4").contains("bars=2|1|0 seconds=1.500"))
        #expect(try client.request("transport tempo 90").contains("tempo=90"))
        let status = try client.request("status")
        #expect(status.contains("transport=stopped") && status.contains("bars=2|1|0"), "\(status)")
        #expect(try client.request("transport locate 1|5|0").hasPrefix("error BAD_VALUE"))
        #expect(try client.request("transport tempo 0").hasPrefix("error OUT_OF_RANGE"))
        #expect(try client.request("transport meter 4/5").hasPrefix("error BAD_VALUE"))
        #expect(try client.request("transport rewind").hasPrefix("error SYNTAX"))
    }
}
