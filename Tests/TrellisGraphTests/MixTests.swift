import Testing
import TrellisCore
import TrellisGraph
import TrellisUnits

@Suite("Fan-out, fan-in and latency compensation")
struct MixTests {
    @Test("a splitter feeding two chains that meet in a mixer gives the exact sum")
    func splitAndMixSums() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(named: "tone")
        try graph.setParameter(tone, "freq", 523.25)
        let splitter = try graph.addNode(named: "splitter")
        let a = try graph.addNode(named: "gain", name: "a")
        let b = try graph.addNode(named: "gain", name: "b")
        try graph.setParameter(a, "gain", -6)
        try graph.setParameter(b, "gain", -12)
        let mixer = try graph.addNode(MultichannelMixer(inputCount: 2), name: "mix")
        let output = try graph.addNode(named: "output")
        try graph.connect(tone, to: splitter)
        try graph.connect(splitter, 0, to: a)
        try graph.connect(splitter, 1, to: b)
        try graph.connect(a, to: mixer, 0)
        try graph.connect(b, to: mixer, 1)
        try graph.connect(mixer, to: output)
        try graph.initialize()
        let out = pull(graph, frames: 4_096)
        let expected = sine(frequency: 523.25, amplitude: 0.5 * (decibels(-6) + decibels(-12)), frames: 4_096)
        #expect(maxDifference(out[0], expected) < 1e-5)
        #expect(maxDifference(out[1], expected) < 1e-5)
    }

    /// tone -> splitter; one path through a limiter (64 frames of look-ahead), the other
    /// direct; both into a mixer.
    private func compensatedGraph() throws -> Graph {
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(named: "tone")
        try graph.setParameter(tone, "freq", 440)
        try graph.setParameter(tone, "amp", 0.25)
        let splitter = try graph.addNode(named: "splitter")
        let limiter = try graph.addNode(named: "limiter")
        try graph.setParameter(limiter, "attack", Float(64.0 / 48.0))
        try graph.setParameter(limiter, "ceiling", 0)
        let mixer = try graph.addNode(MultichannelMixer(inputCount: 2), name: "mix")
        let output = try graph.addNode(named: "output")
        try graph.connect(tone, to: splitter)
        try graph.connect(splitter, 0, to: limiter)
        try graph.connect(limiter, to: mixer, 0)
        try graph.connect(splitter, 1, to: mixer, 1)
        try graph.connect(mixer, to: output)
        try graph.initialize()
        return graph
    }

    @Test("paths of different latency meeting at a mixer are aligned, and the graph reports 64 frames")
    func latencyCompensation() throws {
        let graph = try compensatedGraph()
        #expect(graph.latency == 64)
        #expect(graph.programListing.contains("delay 64 frames"))
        let out = pull(graph, frames: 4_800)
        let tone = sine(frequency: 440, amplitude: 0.25, frames: 4_800)
        // The aligned sum: both paths 64 frames late, so the output is twice the tone, delayed.
        for frame in 64..<4_800 {
            #expect(abs(out[0][frame] - 2 * tone[frame - 64]) < 1e-5, "frame \(frame)")
            if abs(out[0][frame] - 2 * tone[frame - 64]) >= 1e-5 { break }
        }
        #expect(out[0][0..<64].allSatisfy { $0 == 0 })
    }

    @Test("a live edit elsewhere in the graph keeps the audio inside a compensating delay: no gap")
    func delayCarriesOverRecompile() throws {
        let graph = try compensatedGraph()
        let before = pull(graph, frames: 4_800)
        // Any edit recompiles the program; this one adds an unconnected node.
        _ = try graph.addNode(named: "gain", name: "spare")
        let after = pull(graph, frames: 4_800, start: 4_800)
        let out = before[0] + after[0]
        let tone = sine(frequency: 440, amplitude: 0.25, frames: 9_600)
        let error = (64..<9_600).map { abs(out[$0] - 2 * tone[$0 - 64]) }.max() ?? 0
        #expect(error < 1e-5, "largest error \(error) around the edit at frame 4800")
    }

    @Test("without compensation the sum would be off: the direct path alone is not delayed")
    func compensationIsNeeded() throws {
        let graph = try compensatedGraph()
        let out = pull(graph, frames: 4_800)
        let tone = sine(frequency: 440, amplitude: 0.25, frames: 4_800)
        let uncompensated = (64..<4_800).map { tone[$0 - 64] + tone[$0] }
        #expect(maxDifference(Array(out[0][64...]), uncompensated) > 0.1)
    }
}
