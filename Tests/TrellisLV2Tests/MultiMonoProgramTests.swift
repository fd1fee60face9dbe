import Glibc
import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
@testable import TrellisLV2
import TrellisUnits

@Suite("Multi-mono instances laid out in the program")
struct MultiMonoProgramTests {
    /// input (channels) -> amp -> output, with `amp` as given.
    static func chain(_ amp: any AudioUnit, channels: Int) throws -> (Graph, NodeID) {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let input = try graph.addNode(GraphInput(channelCount: channels), name: "in")
        let node = try graph.addNode(amp, name: "amp")
        let output = try graph.addNode(GenericOutput(channelCount: channels), name: "out")
        try graph.connect(input, to: node)
        try graph.connect(node, to: output)
        try graph.initialize()
        return (graph, node)
    }

    /// Renders `cycles` of 256 frames of `signal` on every channel, with the gain
    /// ramping from -3 dB to -20 dB over 300 frames from frame 100.
    static func renderRamp(_ graph: Graph, node: NodeID, channels: Int, cycles: Int = 3) throws -> [[Float]] {
        graph.engine.startRendering()
        defer { graph.engine.stopRendering() }
        try graph.scheduleParameter(node, "gain", -20, atSampleTime: 100, rampFrames: 300)
        let input = AudioBufferList(channelCount: channels, frameCapacity: 256)
        let output = AudioBufferList(channelCount: channels, frameCapacity: 256)
        var noise = Noise()
        var result = Array(repeating: [Float](), count: channels)
        for cycle in 0..<cycles {
            let samples = noise.samples(256)
            for channel in 0..<channels { for frame in 0..<256 { input[0][channel][frame] = samples[frame] } }
            let time = AudioTimeStamp(sampleTime: Int64(cycle * 256), hostTime: 0)
            #expect(graph.engine.render(frameCount: 256, timeStamp: time, input: input[0], output: output[0]) == .ok)
            for channel in 0..<channels { result[channel] += output.samples(channel: channel, frameCount: 256) }
        }
        return result
    }

    static func stereoAmp() throws -> MultiMonoUnit {
        let unit = MultiMonoUnit(instances: [try makeUnit(Fixture.amp, maxFrames: 256), try makeUnit(Fixture.amp, maxFrames: 256)])
        try unit.setParameter(named: "gain", -3)
        return unit
    }

    @Test("each instance has its own render step, on its channel of the unit's buses, and the unit's step follows")
    func listingShowsInstances() throws {
        let (graph, _) = try Self.chain(try Self.stereoAmp(), channels: 2)
        let renders = graph.programListing.split(separator: "\n").filter { $0.contains(": render ") }.map(String.init)
        #expect(renders.count == 3, "\(graph.programListing)")
        #expect(renders[0].contains("render amp [1/2]") && renders[1].contains("render amp [2/2]"))
        #expect(renders[2].contains("render amp (") && renders[2].hasSuffix("in: - out: -"))
    }

    @Test("a ramp sent to a multi-mono node reaches both channels at its frame, sample for sample as one instance alone")
    func rampReachesEveryInstance() throws {
        let (stereo, node) = try Self.chain(try Self.stereoAmp(), channels: 2)
        let single = try makeUnit(Fixture.amp, maxFrames: 256)
        try single.setParameter(named: "gain", -3)
        let (mono, monoNode) = try Self.chain(single, channels: 1)
        let both = try Self.renderRamp(stereo, node: node, channels: 2)
        let alone = try Self.renderRamp(mono, node: monoNode, channels: 1)
        #expect(both[0] == alone[0])
        #expect(both[1] == alone[0])
        var noise = Noise()
        let signal = noise.samples(768)
        let start = powf(10, -3 / 20), end = powf(10, -20 / 20)
        #expect((0..<100).allSatisfy { abs(both[0][$0] - signal[$0] * start) < 1e-6 }, "-3 dB before the ramp")
        #expect((400..<768).allSatisfy { abs(both[0][$0] - signal[$0] * end) < 1e-6 }, "-20 dB after it")
        let unit = try stereo.node(node).unit
        #expect(try unit.parameterValue(ParameterAddress(0)) == -20, "the unit shows the value the events set")
    }
}
