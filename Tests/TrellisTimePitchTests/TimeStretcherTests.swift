import Foundation
import Testing
import TrellisAudioFile
import TrellisTestSupport
@testable import TrellisTimePitch

func scratchPath(_ name: String) -> String {
    NSTemporaryDirectory() + "trellis-timepitch-\(getpid())-\(UUID().uuidString.prefix(8))-\(name)"
}

@Suite("Time stretcher")
struct TimeStretcherTests {
    @Test("offline, it gives what the rubberband command gives with the same options", arguments: [
        (0.5, 0.0), (1.5, 0.0), (1.0, 1200.0), (0.8, -300.0),
    ])
    func matchesTheCommand(_ rate: Double, _ cents: Double) throws {
        let input = scratchPath("in.wav"), reference = scratchPath("ref.wav")
        let make = try runCapped("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "float", input,
                                                  "synth", "2", "sine", "440", "sine", "660", "vol", "0.4"], addressSpace: 1 << 30, deadline: 30)
        #expect(make.status == 0)
        let run = try runCapped("/usr/bin/rubberband", ["-q", "-3", "--ignore-clipping", "-T", "\(rate)", "-p", "\(cents / 100)", input, reference],
                                addressSpace: 4 << 30, deadline: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let signal = try AudioFileReader(path: input).readAll()
        let expected = try AudioFileReader(path: reference).readAll()
        let ours = TimeStretcher.stretch(signal, sampleRate: 48_000, settings: StretchSettings(rate: rate, cents: cents))
        #expect(ours[0].count == expected[0].count, "ours \(ours[0].count), rubberband's \(expected[0].count)")
        let difference = zip(ours[0], expected[0]).map { abs($0 - $1) }.max() ?? 1
        #expect(difference < 1e-5, "largest difference \(difference)")
    }
}
