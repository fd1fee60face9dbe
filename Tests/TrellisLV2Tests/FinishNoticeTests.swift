import Synchronization
import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisLV2
import TrellisUnits

@Suite("Notices from the audio thread")
struct FinishNoticeTests {
    @Test("a plugin fed NaN is silenced and the notice names its node, its plugin and the cycle's sample time")
    func nonFiniteOutputNamesTheNode() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let input = try graph.addNode(GraphInput(channelCount: 1))
        let amp = try makeUnit(Fixture.amp, maxFrames: 256)
        let fx = try graph.addNode(amp, name: "fx1")
        let output = try graph.addNode(GenericOutput(channelCount: 1))
        try graph.connect(input, to: fx)
        try graph.connect(fx, to: output)
        try graph.initialize()
        let heard = Mutex<[EngineNotice]>([])
        graph.engine.addNoticeListener { notice in heard.withLock { $0.append(notice) } }
        graph.engine.startRendering()
        let source = AudioBufferList(channelCount: 1, frameCapacity: 256), out = AudioBufferList(channelCount: 1, frameCapacity: 256)
        for cycle in 0..<4 {
            source[0][0].update(repeating: 0.25, count: 256)
            if cycle == 2 { source[0][0][100] = .nan }
            _ = graph.engine.render(frameCount: 256, timeStamp: AudioTimeStamp(sampleTime: Int64(cycle * 256)), input: source[0], output: out[0])
            if cycle >= 2 { #expect(out.samples(channel: 0, frameCount: 256).allSatisfy { $0 == 0 }, "cycle \(cycle) is silenced") }
        }
        graph.engine.stopRendering()
        let faults = heard.withLock { $0 }.filter { $0.kind == .nonFiniteOutput }
        #expect(faults.count == 1)
        let fault = try #require(faults.first)
        #expect(fault.unitID == amp.unitID)
        #expect(fault.unit == UnitLabel(node: "fx1", description: amp.componentDescription, sampleRate: 48_000))
        #expect(fault.sampleTime == 512)
        #expect(fault.text(registry: graph.registry).hasPrefix("node fx1 ("))
        #expect(fault.text(registry: graph.registry).hasSuffix(") produced non-finite samples from 0.01 s; silenced"))
    }
}
