import Testing
import TrellisCore
import TrellisGraph
import TrellisUnits

@Suite("Graph rules")
struct GraphRulesTests {
    @Test("fan-out without a splitter is refused, and the message says to use one")
    func fanOutRefused() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(named: "tone")
        let a = try graph.addNode(named: "gain", name: "a")
        let b = try graph.addNode(named: "gain", name: "b")
        try graph.connect(tone, to: a)
        #expect {
            try graph.connect(tone, to: b)
        } throws: { error in
            let text = "\(error)"
            return text.contains("tone1 output 0") && text.contains("a input 0") && text.contains("b input 0") && text.contains("splitter")
        }
        #expect(graph.connections.count == 1)
    }

    @Test("a connection that would close a cycle is refused, naming the nodes on it")
    func cycleRefused() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let a = try graph.addNode(named: "gain", name: "a")
        let b = try graph.addNode(named: "gain", name: "b")
        let c = try graph.addNode(named: "gain", name: "c")
        try graph.connect(a, to: b)
        try graph.connect(b, to: c)
        #expect {
            try graph.connect(c, to: a)
        } throws: { error in
            "\(error)".contains("c -> a -> b -> c")
        }
        #expect(graph.connections.count == 2)
    }

    @Test("an input bus already fed is refused")
    func inputTakenRefused() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let one = try graph.addNode(named: "tone")
        let two = try graph.addNode(named: "tone")
        let gain = try graph.addNode(named: "gain")
        try graph.connect(one, to: gain)
        #expect { try graph.connect(two, to: gain) } throws: { "\($0)".contains("gain1 input 0 is already fed by tone1 output 0") }
    }

    @Test("an element that does not exist is refused, with how many there are")
    func missingElementRefused() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(named: "tone")
        let gain = try graph.addNode(named: "gain")
        #expect { try graph.connect(tone, 3, to: gain) } throws: { "\($0)".contains("tone1 output 3 does not exist (the node has 1 output bus)") }
        #expect { try graph.connect(tone, to: gain, 1) } throws: { "\($0)".contains("gain1 input 1 does not exist") }
    }

    @Test("a format mismatch is refused at initialize, naming both ends and both formats")
    func formatMismatchRefused() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(ToneGenerator(channelCount: 1))
        let gain = try graph.addNode(Gain(channelCount: 2))
        let output = try graph.addNode(named: "output")
        try graph.connect(tone, to: gain)
        try graph.connect(gain, to: output)
        #expect { try graph.initialize() } throws: { error in
            let text = "\(error)"
            return text.contains("tone1 output 0 is 48000 Hz, 1 ch") && text.contains("gain1 input 0 is 48000 Hz, 2 ch")
        }
        #expect(!graph.isInitialized)
    }

    @Test("a connection that asks for conversion maps mono to both channels")
    func conversionDuplicatesMono() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(ToneGenerator(channelCount: 1))
        let output = try graph.addNode(named: "output")
        try graph.setParameter(tone, "freq", 1000)
        try graph.connect(tone, to: output, converting: true)
        try graph.initialize()
        #expect(graph.programListing.contains("convert"))
        let out = pull(graph, frames: 480)
        let expected = sine(frequency: 1000, amplitude: 0.5, frames: 480)
        #expect(maxDifference(out[0], expected) < 1e-5)
        #expect(out[0] == out[1])
    }

    @Test("a graph without an output node cannot be rendered")
    func outputNodeRequired() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        _ = try graph.addNode(named: "tone")
        #expect { try graph.initialize() } throws: { "\($0)".contains("no output node") }
    }

    @Test("an unknown unit name suggests close matches")
    func unknownUnitSuggests() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        #expect { try graph.addNode(named: "gian") } throws: { "\($0)".contains("did you mean gain") }
    }

    @Test("a failed edit on a running graph leaves the program running as before")
    func failedEditKeepsProgram() throws {
        let (graph, ids) = try chain(gains: [-6])
        try graph.initialize()
        let before = graph.programListing
        #expect(throws: GraphError.self) { try graph.connect(ids[1], to: ids[0]) }
        #expect(graph.programListing == before)
        let out = pull(graph, frames: 256)
        #expect(maxDifference(out[0], sine(frequency: 440, amplitude: 0.5 * decibels(-6), frames: 256)) < 1e-5)
    }

    @Test("a node name is taken once; a removed node's name is free again and finds the new node")
    func namesFollowNodes() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let first = try graph.addNode(named: "gain", name: "trim")
        #expect(throws: GraphError.self) { try graph.addNode(named: "gain", name: "trim") }
        try graph.removeNode(first)
        #expect(throws: GraphError.self) { try graph.node(named: "trim") }
        let second = try graph.addNode(named: "tone", name: "trim")
        #expect(try graph.node(named: "trim").id == second)
        #expect(try graph.addNode(named: "gain") != second)
        #expect(graph.nodes.map(\.name) == ["trim", "gain1"])
    }

    @Test("a unit that does not fit a node's connections is refused and the node keeps its unit")
    func refusedReplacementChangesNothing() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(named: "tone")
        let mixer = try graph.addNode(MultichannelMixer(inputCount: 2), name: "mix")
        try graph.connect(tone, to: mixer, 1)
        #expect(throws: GraphError.self) { try graph.replaceUnit(of: mixer, with: Gain()) }
        #expect(try graph.unit(mixer) is MultichannelMixer)
        #expect(graph.connections.count == 1)
    }

    @Test("a transaction with a bad edit changes nothing")
    func transactionIsAtomic() throws {
        let (graph, ids) = try chain(gains: [0])
        try graph.initialize()
        let nodes = graph.nodes.count
        #expect(throws: GraphError.self) {
            try graph.transaction { () throws(GraphError) in
                _ = try graph.addNode(named: "gain", name: "extra")
                try graph.connect(ids[0], to: ids[1])  // already connected
            }
        }
        #expect(graph.nodes.count == nodes)
    }
}
