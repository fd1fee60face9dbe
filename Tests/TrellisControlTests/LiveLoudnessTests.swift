import Foundation
import Testing
import TrellisControl

/// EBU R128 loudness of a live bus, read with `meter BUS loudness` and `watch ... loudness`.
/// The rig plays a 1 kHz sine of amplitude 0.5 on one channel: BS.1770 weighs one channel
/// by 1 and 1 kHz by +0.691 dB, so it reads 20·log10(0.5) − 3.01 = −9.03 LUFS, and its
/// true peak is 20·log10(0.5) = −6.02 dBTP.
extension LiveControlTests {
    static let toneLoudness = Double(decibels(0.5)) - 10 * log10(2.0)

    /// A figure of a `meter BUS loudness` reply.
    static func figure(_ key: String, in reply: String) throws -> Double {
        try #require(field(key, in: reply).flatMap { Double($0) }, "\(key) in \(reply)")
    }

    @Test("meter BUS loudness reads a steady sine at its momentary, short-term and integrated loudness, range 0 and its true peak")
    func loudnessOfASine() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let client = try rig.client()
        let first = try client.request("meter trim loudness")
        #expect(first.hasPrefix("ok trim.0 momentary="), "\(first)")
        // The short-term window is 3 s long.
        usleep(3_400_000)
        let reply = try client.request("meter trim loudness")
        for key in ["momentary", "short-term", "integrated"] {
            #expect(abs(try Self.figure(key, in: reply) - Self.toneLoudness) <= 0.1, "\(key): \(reply)")
        }
        #expect(try Self.figure("range", in: reply) <= 0.1, "\(reply)")
        #expect(abs(try Self.figure("true-peak", in: reply) - Double(decibels(0.5))) <= 0.1, "\(reply)")
    }

    @Test("meter BUS loudness reset starts over: after a 10 dB cut, the integrated loudness is the quieter signal's alone")
    func loudnessReset() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let client = try rig.client()
        _ = try client.request("meter trim loudness")
        usleep(1_000_000)
        #expect(try client.request("set trim gain -10").hasPrefix("ok"))
        usleep(200_000)
        #expect(try client.request("meter trim loudness reset").hasPrefix("ok trim.0 "))
        usleep(1_200_000)
        let reply = try client.request("meter trim loudness")
        #expect(abs(try Self.figure("integrated", in: reply) - (Self.toneLoudness - 10)) <= 0.1, "\(reply)")
        #expect(abs(try Self.figure("true-peak", in: reply) - (Double(decibels(0.5)) - 10)) <= 0.1, "\(reply)")
    }

    @Test("watch meters=BUS loudness: each meter event carries the bus's loudness beside its levels")
    func watchedLoudness() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("mode json") == "ok json")
        _ = try client.request(#"{"id": "w", "command": "watch events=meter meters=trim loudness rate=10"}"#)
        var last: [String: Any]?
        let deadline = Date().addingTimeInterval(1.5)
        while Date() < deadline, let line = try client.readLine(timeout: 1) {
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], event["event"] as? String == "meter" else { continue }
            last = event["data"] as? [String: Any]
        }
        let data = try #require(last)
        let loudness = try #require(data["loudness"] as? [String: Any], "\(data)")
        #expect(abs(try #require(loudness["momentary"] as? Double) - Self.toneLoudness) <= 0.1, "\(loudness)")
        #expect(abs(try #require(loudness["truePeak"] as? Double) - Double(decibels(0.5))) <= 0.1, "\(loudness)")
        #expect(data["peak"] is [Double])
    }
}
