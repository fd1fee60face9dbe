import Foundation
import Testing
import TrellisControl

extension LiveControlTests {
    @Test("a session that asks for 44.1 kHz on a 48 kHz server says so when it starts and when it is loaded")
    func rateMismatchWarns() throws {
        let at44 = toneSession.replacingOccurrences(of: "sample-rate: 48000", with: "sample-rate: 44100")
        let rig = try LiveRig(session: at44)
        defer { rig.stop() }
        let expected = "the session asks for 44100 Hz (defaults: sample-rate) but runs at the server's 48000 Hz"
        let log = rig.log(containing: expected)
        #expect(log.contains(expected), "\(log)")
        let other = try write(at44, to: "other.yaml", in: rig.folder)
        #expect(try rig.ask("load \(other)").contains(expected))
        #expect(try rig.ask("status").contains("rate=48000"))
    }
}
