import Foundation
import Testing
import TrellisTestSupport

/// A constant 0.5 through a gain whose lane the transport plays: the output is the
/// gain curve itself, sample by sample.
@Suite("Automation in a render")
struct AutomationRenderTests {
    static func render(lane: String, seconds: Double = 1.5) throws -> [Float] {
        let folder = (temporaryPath("x") as NSString).deletingLastPathComponent
        try FloatWAV.write(Array(repeating: 0.5, count: 48_000), sampleRate: 48_000, to: folder + "/dc.wav")
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              dc: { unit: player, file: dc.wav, loops: -1 }
              trim:
                unit: gain
                channels: 1
                automation:
                  gain: \(lane)
              out: { unit: output, channels: 1 }
            connections: [dc -> trim -> out]
            """.write(toFile: folder + "/auto.yaml", atomically: true, encoding: .utf8)
        let result = try trellis(["render", folder + "/auto.yaml", "-o", folder + "/auto.wav", "--duration", "\(seconds)", "--sample-type", "float32"])
        guard result.status == 0 else { throw TestFailure(result.stderr) }
        return try firstChannel(ofFile: folder + "/auto.wav")
    }

    static func decibels(_ sample: Float) -> Double { 20 * log10(Double(sample) / 0.5) }

    @Test("a lane from 0 dB to -20 dB over a second measures as that ramp, and holds its last value after")
    func linearRamp() throws {
        let output = try Self.render(lane: "[0s 0, 1s -20]")
        for seconds in stride(from: 0.0, through: 1.0, by: 0.125) {
            let frame = min(47_999, Int(seconds * 48_000))
            #expect(abs(Self.decibels(output[frame]) - (-20 * seconds)) < 0.02, "at \(seconds) s: \(Self.decibels(output[frame])) dB")
        }
        #expect(output[60_000...].allSatisfy { abs(Self.decibels($0) + 20) < 1e-3 })
    }

    @Test("a lane starts on its first point's frame: before it the gain is the first value, from it the line")
    func startsOnItsFrame() throws {
        let output = try Self.render(lane: "[0.5s 0, 1.5s -20]", seconds: 1)
        #expect(output[..<24_000].allSatisfy { $0 == 0.5 })
        #expect(output[24_001] < 0.5 && output[24_001] > 0.499)
    }

    @Test("a stepped lane changes on the frame of each point")
    func steppedLane() throws {
        let output = try Self.render(lane: "{ points: [0s 0, 0.5s -12, 1|3|0 -6], step: true }", seconds: 1.2)
        #expect(output[23_999] == 0.5)
        #expect(abs(Self.decibels(output[24_000]) + 12) < 1e-3, "\(Self.decibels(output[24_000]))")
        #expect(abs(Self.decibels(output[47_999]) + 12) < 1e-3)
        // 1|3|0 at 120 BPM is beat 2: one second in.
        #expect(abs(Self.decibels(output[48_000]) + 6) < 1e-3, "\(Self.decibels(output[48_000]))")
    }

    @Test("a lane's point that is not a position or not a value is refused where it is written")
    func badLane() throws {
        #expect(throws: TestFailure.self) { try Self.render(lane: "[soon 0]") }
        do {
            _ = try Self.render(lane: "[0s loud]")
        } catch let failure as TestFailure {
            #expect(failure.description.contains("auto.yaml:") && failure.description.contains("loud"), "\(failure)")
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
