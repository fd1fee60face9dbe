import Foundation
import Glibc
import Testing
import TrellisAudioFile

extension LiveControlTests {
    @Test("kill -9 during a 10 s recording leaves WAV and CAF files that read at least 9 s, and trellis recover finds the rest")
    func recordingSurvivesKill() throws {
        let rig = try LiveRig(session: """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
              trim: { unit: gain, channels: 1 }
              out: { unit: output, channels: 1 }
            connections: [tone1 -> trim, trim -> out]
            recorders:
              wavtake: { source: trim.0, file: take.wav }
              caftake: { source: trim.0, file: take.caf }
            """)
        defer { rig.stop() }
        Thread.sleep(forTimeInterval: 10.3)
        rig.kill(SIGKILL)
        for name in ["take.wav", "take.caf"] {
            let path = rig.folder + "/" + name
            let frames = try AudioFileReader(path: path).readAll()[0].count
            #expect(frames >= 9 * 48_000, "\(name): \(frames) frames readable after kill -9")
            let recovered = try trellis(["recover", path])
            #expect(recovered.status == 0, "\(recovered.stderr)")
            let after = try AudioFileReader(path: path).readAll()[0]
            #expect(after.count >= frames && after.count <= 11 * 48_000, "\(name): \(after.count) frames after recover")
            // The tone itself, not silence: a 0.5 sine's peak.
            #expect(abs((after.suffix(48_000).map { abs($0) }.max() ?? 0) - 0.5) < 0.01)
        }
    }
}
