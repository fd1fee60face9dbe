import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisUnits

/// Renders `graph`'s engine for `slices` slices of `slice` frames per run.
/// The graph's input is fed noise, so the figure is the graph's own work.
func graphBenchmark(group: String, name: String, graph: Graph, slice: Int = 256, slices: Int = 64) -> Benchmark {
    let output = AudioBufferList(channelCount: graph.plan?.outputChannelCount ?? 2, frameCapacity: slice)
    let input = AudioBufferList(channelCount: max(1, graph.plan?.inputChannelCount ?? 2), frameCapacity: slice)
    var seed: UInt32 = 1
    for channel in 0..<input[0].channelCount {
        for frame in 0..<slice {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            input[0][channel][frame] = Float(seed >> 8) / Float(1 << 24) - 0.5
        }
    }
    var time: Int64 = 0
    return Benchmark(group: group, name: name, framesPerRun: slice * slices) {
        for _ in 0..<slices {
            _ = graph.engine.render(frameCount: slice, timeStamp: AudioTimeStamp(sampleTime: time), input: input[0], output: output[0])
            time += Int64(slice)
        }
    }
}

func gainChain(_ count: Int, into graph: Graph, after source: NodeID) throws -> NodeID {
    var previous = source
    for index in 0..<count {
        let gain = try graph.addNode(named: "gain")
        try graph.setParameter(gain, "gain", index % 2 == 0 ? -0.5 : 0.5)
        try graph.connect(previous, to: gain)
        previous = gain
    }
    return previous
}

func graphBenchmarks() throws -> [Benchmark] {
    // 64 gain nodes in a line, stereo.
    let chain = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
    let tone = try chain.addNode(GraphInput())
    let last = try gainChain(64, into: chain, after: tone)
    let output = try chain.addNode(named: "output")
    try chain.connect(last, to: output)
    try chain.initialize()

    // The same 64 gains as 4 subgraphs nested 3 deep (16 gains per level + 16 outside).
    func level(_ depth: Int) throws -> Subgraph {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let input = try graph.addNode(GraphInput())
        var previous = input
        if depth > 1 {
            let inner = try graph.addNode(try level(depth - 1), name: "inner")
            try graph.connect(previous, to: inner)
            previous = inner
        }
        previous = try gainChain(16, into: graph, after: previous)
        let output = try graph.addNode(named: "output")
        try graph.connect(previous, to: output)
        return try Subgraph(graph: graph)
    }
    let nested = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
    let source = try nested.addNode(GraphInput())
    let outside = try gainChain(16, into: nested, after: source)
    let sub = try nested.addNode(try level(3), name: "sub")
    try nested.connect(outside, to: sub)
    let nestedOutput = try nested.addNode(named: "output")
    try nested.connect(sub, to: nestedOutput)
    try nested.initialize()

    // 16 mono inputs mixed to stereo with volume and pan.
    let mix = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
    let inputs = GraphInput(channelCount: 1)
    try inputs.setElementCount(16, scope: .output)
    let inputNode = try mix.addNode(inputs)
    let mixer = MultichannelMixer(inputCount: 16)
    for bus in 0..<16 {
        try mixer.setFormat(.canonical(sampleRate: 48_000, channelCount: 1), scope: .input, element: bus)
        try mixer.setParameter(named: "in\(bus).pan", Float(bus) / 7.5 - 1)
        try mixer.setParameter(named: "in\(bus).volume", 0.5)
    }
    let mixerNode = try mix.addNode(mixer)
    for bus in 0..<16 { try mix.connect(inputNode, bus, to: mixerNode, bus) }
    let mixOutput = try mix.addNode(named: "output")
    try mix.connect(mixerNode, to: mixOutput)
    try mix.initialize()

    return [
        graphBenchmark(group: "graph", name: "16 mono inputs mixed to stereo (volume, pan, meters)", graph: mix),
        graphBenchmark(group: "graph", name: "64 gains in a line (stereo)", graph: chain),
        graphBenchmark(group: "graph", name: "64 gains, 3-deep subgraph (stereo)", graph: nested),
    ]
}

