import Foundation
import Testing
import TrellisCore
import TrellisGraph
import TrellisUnits

@Suite("Units leave memory with their node")
struct UnitReleaseTests {
    @Test("a delay removed from a running graph is freed, its 2 s lines with it", arguments: [false, true])
    func removedDelayIsFreed(rendering: Bool) throws {
        let graph = Graph(registry: BuiltInUnits.registry(), sampleRate: 48_000, maximumFrames: 256)
        let tone = try graph.addNode(named: "tone")
        let output = try graph.addNode(named: "output")
        weak var released: AudioUnitBase?
        do {
            let delay = Delay()
            released = delay
            let id = try graph.addNode(delay, name: "echo")
            try graph.connect(tone, to: id)
            try graph.connect(id, to: output)
        }
        try graph.initialize()
        if rendering { graph.engine.startRendering() }
        defer { if rendering { graph.engine.stopRendering() } }
        _ = pull(graph, frames: 2_048)
        try graph.removeNode(graph.node(named: "echo").id)
        try graph.connect(tone, to: output)
        _ = pull(graph, frames: 2_048)
        let deadline = Date().addingTimeInterval(2)
        while released != nil && Date() < deadline {
            graph.engine.collectRetired()
            usleep(5_000)
        }
        #expect(released == nil, "the removed delay is still alive")
    }

    @Test("a graph with a subgraph is freed once nothing holds it, its inner graph and their units with it")
    func graphWithSubgraphIsFreed() throws {
        weak var outer: Graph?
        weak var inner: Graph?
        weak var innerGain: AudioUnitBase?
        do {
            let innerGraph = Graph(registry: BuiltInUnits.registry())
            let input = try innerGraph.addNode(GraphInput())
            let gain = Gain()
            let gainID = try innerGraph.addNode(gain, name: "gain")
            let innerOutput = try innerGraph.addNode(named: "output")
            try innerGraph.connect(input, to: gainID)
            try innerGraph.connect(gainID, to: innerOutput)
            let graph = Graph(registry: BuiltInUnits.registry(), sampleRate: 48_000, maximumFrames: 256)
            let tone = try graph.addNode(named: "tone")
            let sub = try graph.addNode(try Subgraph(graph: innerGraph), name: "sub")
            let output = try graph.addNode(named: "output")
            try graph.connect(tone, to: sub)
            try graph.connect(sub, to: output)
            try graph.initialize()
            _ = pull(graph, frames: 512)
            // An edit compiles the graph, and its subgraph, again.
            try graph.setParameter(tone, "amp", 0.5)
            try graph.disconnect(output)
            try graph.connect(sub, to: output)
            _ = pull(graph, frames: 512)
            graph.uninitialize()
            (outer, inner, innerGain) = (graph, innerGraph, gain)
        }
        #expect(outer == nil, "the outer graph is still alive")
        #expect(inner == nil, "the subgraph's graph is still alive")
        #expect(innerGain == nil, "the gain inside the subgraph is still alive")
    }
}
