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
}
