import Foundation
import Testing
import TrellisCore
import TrellisGraph
import TrellisLV2
import TrellisOffline
import TrellisUnits

@Suite("Plugin latency, known before the first program and followed when it changes")
struct LatencyTests {
    static let dpl = "http://gareus.org/oss/lv2/dpl#stereo"
    static let lookahead = "http://plugin.org.uk/swh-plugins/lookaheadLimiter"

    @Test("x42 dpl reports its look-ahead once initialized: 64 frames at 48 kHz, 128 at 96 kHz")
    func knownAtInitialization() throws {
        for (rate, frames) in [(48_000.0, 64), (96_000.0, 128)] {
            let unit = try makeUnit(Self.dpl, sampleRate: rate)
            #expect(unit.latencyFrames == 0, "nothing has run before initialization")
            try unit.initialize()
            #expect(unit.latencyFrames == frames)
            // What it reports is where an impulse comes out.
            let render = OfflineRender(unit, blockSize: 512)
            var impulse = [Float](repeating: 0, count: 512)
            impulse[0] = 0.5
            let out = render.process([impulse], frames: 512)[0]
            #expect(out.firstIndex { abs($0) > 0.25 } == frames)
        }
    }

    /// tone (0.25) -> splitter; one path through swh's look-ahead limiter (far below
    /// its limit, so unity gain, delayed by `delay_s`), the other dry; summed by a mixer.
    private func limiterBesideDryPath(delay: Float) throws -> (graph: Graph, limiter: NodeID) {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 1024)
        let tone = try graph.addNode(ToneGenerator(), name: "tone")
        try graph.setParameter(tone, "freq", 440)
        try graph.setParameter(tone, "amp", 0.25)
        let splitter = try graph.addNode(Splitter(), name: "split")
        let limiter = try graph.addNode(try makeUnit(Self.lookahead, maxFrames: 1024), name: "lim")
        try graph.setParameter(limiter, "delay_s", delay)
        let mixer = try graph.addNode(MultichannelMixer(inputCount: 2), name: "mix")
        let output = try graph.addNode(GenericOutput(), name: "out")
        try graph.connect(tone, to: splitter)
        try graph.connect(splitter, 0, to: limiter)
        try graph.connect(limiter, to: mixer, 0)
        try graph.connect(splitter, 1, to: mixer, 1)
        try graph.connect(mixer, to: output)
        try graph.initialize()
        return (graph, limiter)
    }

    private func render(_ graph: Graph, frames: Int) throws -> [Float] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-latency-\(UUID()).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try OfflineRenderer(graph: graph).render(frameCount: frames, to: path)
        return try WAV.read(path)
    }

    private func peak(_ samples: ArraySlice<Float>) -> Float { samples.map(abs).max() ?? 0 }

    @Test("the first program compensates the limiter: the two paths sum to twice the tone")
    func firstProgramAligned() throws {
        let (graph, _) = try limiterBesideDryPath(delay: 0.01)
        #expect(graph.latency == 480)
        #expect(graph.programListing.contains("delay 480 frames"))
        let out = try render(graph, frames: 24_000)
        #expect(abs(peak(out[1_000...]) - 0.5) < 1e-3, "aligned paths add up to 0.5, a comb filter would not")
    }

    @Test("a latency that changes during an offline render is compensated from the next slice on")
    func changedLatencyRealigned() throws {
        let (graph, limiter) = try limiterBesideDryPath(delay: 0.01)
        _ = try render(graph, frames: 4_096)
        try graph.setParameter(limiter, "delay_s", 0.02)
        let out = try render(graph, frames: 24_000)
        #expect(graph.latency == 960)
        #expect(graph.programListing.contains("delay 960 frames"))
        // The first slice still compensates 480 frames: the paths are 480 frames apart,
        // a comb filter that takes 440 Hz down to |cos(π·440·480/48000)| ≈ 0.31.
        #expect(abs(peak(out[200..<1_024]) - 0.5 * 0.309) < 0.01)
        #expect(abs(peak(out[2_048...]) - 0.5) < 1e-3)
    }
}
