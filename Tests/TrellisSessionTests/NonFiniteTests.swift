import Foundation
import Testing
import TrellisAudioFile
import TrellisCore
import TrellisGraph
@testable import TrellisSession

@Suite("Non-finite output: silenced, reset, and back with finite input")
struct NonFiniteTests {
    /// A 1 kHz tone at 0.5 through 32 gains at +24 dB (1.26e38, still finite) into an EQ
    /// with +12 dB at 1 kHz, which overflows to infinity and, unchecked, leaves its
    /// filter state NaN for good.
    static let overload: String = {
        let gains = (1...32).map { "  g\($0): { unit: gain, channels: 1, parameters: { gain: 24 } }" }.joined(separator: "\n")
        let names = ["tone1"] + (1...32).map { "g\($0)" } + ["eq1", "out"]
        let chain = zip(names, names.dropFirst()).map { "\($0) -> \($1)" }.joined(separator: ", ")
        return """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
            \(gains)
              eq1: { unit: eq, channels: 1, parameters: { band0.type: peaking, band0.freq: 1000, band0.gain: 12, band0.q: 1 } }
              out: { unit: output, channels: 1 }
            connections: [\(chain)]
            """
    }()

    @Test("an EQ driven past the float range is silent, never NaN, and plays the tone again once its input is back in range")
    func eqComesBack() throws {
        let session = try load(Self.overload)
        let graph = session.graph
        let poisoned = pull(graph, frames: 4_800)[0]
        #expect(poisoned.allSatisfy { $0 == 0 }, "an overflowing unit is silenced")
        for index in 1...32 { try graph.setParameter(graph.node(named: "g\(index)").id, "gain", 0) }
        let after = pull(graph, frames: 9_600)[0]
        #expect(after.allSatisfy { $0.isFinite })
        // +12 dB at the band's centre: 0.5 · 10^(12/20) = 1.99.
        let peak = after.suffix(2_400).map { abs($0) }.max() ?? 0
        #expect(abs(peak - 1.9905) < 0.02, "peak \(peak)")
        // Back within one 256-frame period of the gains' ramp bringing the input in range.
        let firstSound = try #require(after.firstIndex { $0 != 0 })
        #expect(firstSound < 4_800, "silent for \(firstSound) frames after the input came back")
    }

    @Test("an offline render of a graph that overflows writes no NaN or infinity")
    func offlineRenderIsFinite() throws {
        let folder = try temporaryFolder()
        let session = folder + "/overload.yaml"
        try Self.overload.write(toFile: session, atomically: false, encoding: .utf8)
        let result = try trellis(["render", session, "--duration", "0.5", "-o", folder + "/out.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("non-finite"), "\(result.stderr)")
        let samples = try AudioFileReader(path: folder + "/out.wav").readAll()[0]
        #expect(samples.count == 24_000 && samples.allSatisfy { $0.isFinite })
    }
}
