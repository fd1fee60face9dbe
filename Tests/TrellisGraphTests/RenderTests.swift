import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisUnits

@Suite("Rendering")
struct RenderTests {
    @Test("a chain of gains renders the tone scaled by the summed decibels")
    func chainGainsAdd() throws {
        let (graph, _) = try chain(gains: [-6, 3, -1.5])
        try graph.initialize()
        let out = pull(graph, frames: 2048, slice: 300)
        let expected = sine(frequency: 440, amplitude: 0.5 * decibels(-4.5), frames: 2048)
        #expect(maxDifference(out[0], expected) < 1e-5)
        #expect(maxDifference(out[1], expected) < 1e-5)
    }

    @Test("a line of N nodes uses the same number of buffers for N = 8 and N = 200")
    func lineUsesConstantBuffers() throws {
        let (short, _) = try chain(gains: Array(repeating: 0, count: 8))
        let (long, _) = try chain(gains: Array(repeating: 0, count: 200))
        try short.initialize()
        try long.initialize()
        let shortCount = try #require(short.plan?.bufferCount)
        let longCount = try #require(long.plan?.bufferCount)
        #expect(shortCount == longCount)
        #expect(longCount <= 4)
    }

    @Test("a splitter feeding a merger puts each path on its own channels")
    func splitterAndMerger() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(ToneGenerator(channelCount: 1))
        let splitter = try graph.addNode(Splitter(channelCount: 1, outputs: 2))
        let a = try graph.addNode(Gain(channelCount: 1), name: "a")
        let b = try graph.addNode(Gain(channelCount: 1), name: "b")
        let merger = try graph.addNode(Merger(inputs: [1, 1]))
        let output = try graph.addNode(named: "output")
        try graph.setParameter(a, "gain", -6)
        try graph.setParameter(b, "gain", -12)
        try graph.connect(tone, to: splitter)
        try graph.connect(splitter, 0, to: a)
        try graph.connect(splitter, 1, to: b)
        try graph.connect(a, to: merger, 0)
        try graph.connect(b, to: merger, 1)
        try graph.connect(merger, to: output)
        try graph.initialize()
        let out = pull(graph, frames: 1024)
        let reference = sine(frequency: 440, amplitude: 0.5, frames: 1024)
        #expect(maxDifference(out[0], reference.map { $0 * decibels(-6) }) < 1e-5)
        #expect(maxDifference(out[1], reference.map { $0 * decibels(-12) }) < 1e-5)
    }

    @Test("a subgraph nested three deep renders the same samples as the same units in one flat graph")
    func nestedSubgraphsMatchFlatGraph() throws {
        let gains: [Float] = [-1, -2, -3, -4]
        let (flat, _) = try chain(gains: gains, frequency: 997)
        try flat.initialize()
        let expected = pull(flat, frames: 4096, slice: 512)

        // Innermost: input -> gain(-4) -> output, wrapped three times, each wrapper adding one gain.
        func level(_ gain: Float, around inner: Subgraph?) throws -> Subgraph {
            let graph = Graph(registry: BuiltInUnits.registry())
            let input = try graph.addNode(GraphInput())
            var previous = input
            if let inner {
                let node = try graph.addNode(inner, name: "inner")
                try graph.connect(previous, to: node)
                previous = node
            }
            let node = try graph.addNode(named: "gain")
            try graph.setParameter(node, "gain", gain)
            try graph.connect(previous, to: node)
            let output = try graph.addNode(named: "output")
            try graph.connect(node, to: output)
            return try Subgraph(graph: graph)
        }
        let deepest = try level(-4, around: nil)
        let third = try level(-3, around: deepest)
        let second = try level(-2, around: third)
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(named: "tone")
        try graph.setParameter(tone, "freq", 997)
        try graph.setParameter(tone, "amp", 0.5)
        let gain = try graph.addNode(named: "gain")
        try graph.setParameter(gain, "gain", -1)
        let sub = try graph.addNode(second, name: "sub")
        let output = try graph.addNode(named: "output")
        try graph.connect(tone, to: gain)
        try graph.connect(gain, to: sub)
        try graph.connect(sub, to: output)
        try graph.initialize()
        #expect(graph.programListing.contains("sub/inner/inner/gain1"))
        let nested = pull(graph, frames: 4096, slice: 512)
        print(graph.programListing)
        #expect(maxDifference(nested[0], expected[0]) < 1e-6)
        #expect(maxDifference(nested[1], expected[1]) < 1e-6)
    }

    /// tone -> sub (input -> gain -6 -> output) -> output, and a meter on the inner gain.
    private func toneThroughSubgraph() throws -> (Graph, NodeID, Recording) {
        let inner = Graph(registry: BuiltInUnits.registry())
        let input = try inner.addNode(GraphInput())
        let gain = try inner.addNode(named: "gain")
        try inner.setParameter(gain, "gain", -6)
        let innerOutput = try inner.addNode(named: "output")
        try inner.connect(input, to: gain)
        try inner.connect(gain, to: innerOutput)
        let graph = Graph(registry: BuiltInUnits.registry())
        let tone = try graph.addNode(named: "tone")
        try graph.setParameter(tone, "amp", 0.5)
        let sub = try graph.addNode(try Subgraph(graph: inner), name: "sub")
        let output = try graph.addNode(named: "output")
        try graph.connect(tone, to: sub)
        try graph.connect(sub, to: output)
        try graph.initialize()
        let recording = Recording()
        _ = try graph.addObserver(recording, path: "sub/gain1")
        return (graph, sub, recording)
    }

    @Test("a bypassed subgraph node passes what feeds it to what it feeds, and its inner nodes hear silence")
    func bypassedSubgraph() throws {
        let (graph, sub, inner) = try toneThroughSubgraph()
        let through = pull(graph, frames: 4096, slice: 256)
        let expected = sine(frequency: 440, amplitude: 0.5, frames: 4096)
        #expect(maxDifference(through[0], expected.map { $0 * decibels(-6) }) < 1e-6)
        #expect(maxDifference(inner.samples, through[0]) == 0, "the inner gain's meter sees what the subgraph outputs")

        try graph.unit(sub).setProperty(.bypassEffect, .bool(true), scope: .global, element: 0)
        try graph.recompile()
        inner.clear()
        let bypassed = pull(graph, frames: 4096, slice: 256, start: 4096)
        let next = sine(frequency: 440, amplitude: 0.5, frames: 8192)
        #expect(maxDifference(bypassed[0], Array(next[4096...])) < 1e-5)
        #expect(inner.samples.count == 4096 && inner.samples.allSatisfy { $0 == 0 }, "the inner gain hears silence while bypassed")
    }

    @Test("a node inside a subgraph is found by its path, and a path through a plain node names nothing")
    func innerPaths() throws {
        let (graph, _, _) = try toneThroughSubgraph()
        #expect(try graph.node(atPath: "sub/gain1").unit is Gain)
        #expect(throws: GraphError.self) { try graph.node(atPath: "sub/gain2") }
        do {
            _ = try graph.node(atPath: "tone1/gain1")
            Issue.record("a path through a tone found a node")
        } catch {
            #expect("\(error)".contains("\"tone1\" is not a subgraph node"))
        }
    }

    @Test("a subgraph rendered on its own gives what it gives inlined")
    func standaloneSubgraph() throws {
        let inner = Graph(registry: BuiltInUnits.registry())
        let input = try inner.addNode(GraphInput())
        let gain = try inner.addNode(named: "gain")
        try inner.setParameter(gain, "gain", -6)
        let output = try inner.addNode(named: "output")
        try inner.connect(input, to: gain)
        try inner.connect(gain, to: output)
        let sub = try Subgraph(graph: inner)
        try sub.initialize()
        let source = AudioBufferList(channelCount: 2, frameCapacity: 64)
        for frame in 0..<64 { source[0][0][frame] = Float(frame) / 64; source[0][1][frame] = -Float(frame) / 64 }
        let out = AudioBufferList(channelCount: 2, frameCapacity: 64)
        let status = sub.render(RenderContext(frameCount: 64, timeStamp: .zero, inputs: source.buses, outputs: out.buses))
        #expect(status == .ok)
        for frame in 0..<64 {
            #expect(abs(out[0][0][frame] - Float(frame) / 64 * decibels(-6)) < 1e-6)
            #expect(abs(out[0][1][frame] + Float(frame) / 64 * decibels(-6)) < 1e-6)
        }
    }

    @Test("the program prints its order and buffers")
    func programListing() throws {
        let (graph, _) = try chain(gains: [0, 0])
        try graph.initialize()
        let listing = graph.programListing
        #expect(listing.contains("render tone1 (augn:tone:trls)"))
        #expect(listing.contains("render gain2 (aufx:gain:trls)"))
        #expect(listing.contains("-> output"))
        let tone = try #require(listing.range(of: "render tone1"))
        let gain = try #require(listing.range(of: "render gain2"))
        #expect(tone.lowerBound < gain.lowerBound)
    }

    @Test("the graph input node carries the backend's input through the program")
    func inputReachesOutput() throws {
        let graph = Graph(registry: BuiltInUnits.registry())
        let input = try graph.addNode(GraphInput())
        let gain = try graph.addNode(named: "gain")
        try graph.setParameter(gain, "gain", 6)
        let output = try graph.addNode(named: "output")
        try graph.connect(input, to: gain)
        try graph.connect(gain, to: output)
        try graph.initialize()
        let source = AudioBufferList(channelCount: 2, frameCapacity: 128)
        for frame in 0..<128 { source[0][0][frame] = 0.25; source[0][1][frame] = -0.125 }
        let out = pull(graph, frames: 128, slice: 128, input: source)
        #expect(out[0].allSatisfy { abs($0 - 0.25 * decibels(6)) < 1e-6 })
        #expect(out[1].allSatisfy { abs($0 + 0.125 * decibels(6)) < 1e-6 })
    }
}

@Suite("Backend preparation")
struct PreparationTests {
    @Test("a new period within the slice size swaps in a new program and audio continues")
    func newPeriodSwapsProgram() throws {
        let (graph, _) = try chain(gains: [-6])
        try graph.prepare(frames: 256, sampleRate: 48_000)
        let first = pull(graph, frames: 512, slice: 256)
        try graph.prepare(frames: 128, sampleRate: 48_000)
        #expect(graph.engine.hasPendingProgram)
        let second = pull(graph, frames: 512, slice: 128, start: 512)
        let expected = sine(frequency: 440, amplitude: 0.5 * decibels(-6), frames: 1024)
        #expect(maxDifference(first[0] + second[0], expected) < 1e-5)
    }

    @Test("a period larger than the units were initialized for re-initializes them")
    func largerPeriodReinitializes() throws {
        let (graph, ids) = try chain(gains: [0])
        try graph.initialize()
        try graph.prepare(frames: 4_096, sampleRate: 48_000)
        #expect(graph.maximumFrames == 4_096)
        #expect(try graph.unit(ids[1]).maximumFramesPerSlice == 4_096)
        let out = pull(graph, frames: 4_096, slice: 4_096)
        #expect(maxDifference(out[0], sine(frequency: 440, amplitude: 0.5, frames: 4_096)) < 1e-5)
    }

    @Test("a new sample rate re-initializes every unit at that rate")
    func newRateReinitializes() throws {
        let (graph, ids) = try chain(gains: [0], frequency: 1_000)
        try graph.initialize()
        try graph.prepare(frames: 256, sampleRate: 44_100)
        #expect(graph.sampleRate == 44_100)
        #expect(try graph.unit(ids[0]).format(scope: .output, element: 0).sampleRate == 44_100)
        let out = pull(graph, frames: 441)
        #expect(maxDifference(out[0], sine(frequency: 1_000, amplitude: 0.5, sampleRate: 44_100, frames: 441)) < 1e-5)
    }

    @Test("an uninitialized graph's engine renders silence")
    func uninitializedIsSilent() throws {
        let (graph, _) = try chain(gains: [0])
        try graph.initialize()
        _ = pull(graph, frames: 256)
        graph.uninitialize()
        let out = pull(graph, frames: 256, start: 256)
        #expect(out.allSatisfy { $0.allSatisfy { $0 == 0 } })
    }
}
