import TrellisAV
import TrellisChain
import TrellisCore
import TrellisGraph
import TrellisUnits

/// Stereo noise the input block hands out, the same slice every call.
private final class NoiseFeed: @unchecked Sendable {
    let list = TrellisAV.AudioBufferList.allocate(maximumBuffers: 2)
    let samples = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 512)

    init() {
        var seed: UInt32 = 1
        for index in 0..<(2 * 512) {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            samples[index] = Float(seed >> 8) / Float(1 << 24) - 0.5
        }
    }

    func next(_ frames: AVAudioFrameCount) -> UnsafePointer<TrellisAV.AudioBufferList>? {
        for channel in 0..<2 {
            list[channel] = TrellisAV.AudioBuffer(mNumberChannels: 1, mDataByteSize: frames * 4, mData: UnsafeMutableRawPointer(samples + channel * 512))
        }
        return UnsafePointer(list.unsafeMutablePointer)
    }
}

/// The engine AVFAudio code builds: input → (EQ → delay → reverb) → main mixer → output,
/// rendered offline in 512-frame slices.
private func avBenchmark(name: String, effects: Bool, slices: Int = 64) throws -> Benchmark {
    let engine = AVAudioEngine()
    let stereo = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
    try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 512)
    var previous: AVAudioNode = engine.inputNode
    if effects {
        let eq = AVAudioUnitEQ(numberOfBands: 4), delay = AVAudioUnitDelay(), reverb = AVAudioUnitReverb()
        for node in [eq, delay, reverb] as [AVAudioNode] {
            engine.attach(node)
            engine.connect(previous, to: node, format: stereo)
            previous = node
        }
        reverb.wetDryMix = 30
    }
    engine.connect(previous, to: engine.mainMixerNode, format: stereo)
    let feed = NoiseFeed()
    guard engine.inputNode.setManualRenderingInputPCMFormat(stereo, inputBlock: { feed.next($0) }) else {
        fatalError("the input block was refused")
    }
    try engine.start()
    let output = AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 512)!
    return Benchmark(group: "av", name: name, framesPerRun: 512 * slices) {
        for _ in 0..<slices { _ = try? engine.renderOffline(512, to: output) }
    }
}

/// The same graph built on TrellisGraph.
private func trellisGraph(effects: Bool) throws -> Graph {
    let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
    var previous = try graph.addNode(GraphInput(channelCount: 2))
    if effects {
        let eq = ParametricEQ()
        for band in 4..<ParametricEQ.maximumBands { try eq.setParameter(named: "band\(band).bypass", 1) }
        let reverb = Reverb()
        try reverb.setParameter(named: "wetDryMix", 30)
        for unit in [eq, Delay(), reverb] as [AudioUnitBase] {
            let node = try graph.addNode(unit)
            try graph.connect(previous, to: node)
            previous = node
        }
    }
    let mixer = try graph.addNode(MultichannelMixer(inputCount: 8))
    try graph.connect(previous, to: mixer)
    let output = try graph.addNode(named: "output")
    try graph.connect(mixer, to: output)
    try graph.initialize()
    return graph
}

/// Rendered as Trellis renders a graph on its caller's thread (`CallerBackend`, as the
/// chain processor does): the float-mode fence, the host clock and the latency check
/// between slices, the duties `renderOffline` has too.
private func trellisGraphBackendBenchmark(name: String, effects: Bool) throws -> Benchmark {
    let graph = try trellisGraph(effects: effects)
    let settings = BackendSettings(maximumFrames: 512, sampleRate: graph.sampleRate)
    let driver = GraphDriver(graph: graph) { source, prepare in
        CallerBackend(source: source, settings: settings, prepare: prepare, inputChannels: 2, outputChannels: 2,
                      betweenSlices: { () throws(GraphError) in try graph.compensateLatencyChanges() })
    }
    try driver.start()
    let feed = NoiseFeed()
    let input = (0..<2).map { feed.samples + $0 * 512 }
    let output = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 512) }
    return Benchmark(group: "av", name: name, framesPerRun: 512 * 64) {
        for _ in 0..<64 { try? driver.backend.render(input: input, output: output, frameCount: 512) }
    }
}

/// Rendered by its engine directly, as the other graph benchmarks are: no backend, no
/// float-mode fence, no clock, no latency check, no input block.
private func trellisEngineBenchmark(name: String, effects: Bool) throws -> Benchmark {
    graphBenchmark(group: "av", name: name, graph: try trellisGraph(effects: effects), slice: 512, slices: 64)
}

/// Each graph built with TrellisAV and with TrellisGraph, measured in alternating rounds.
func avBenchmarks() throws -> [[Benchmark]] {
    try [false, true].map { effects in
        let chain = effects ? "input -> EQ -> delay -> reverb -> " : "input -> "
        return [
            try avBenchmark(name: "TrellisAV renderOffline: \(chain)main mixer -> output", effects: effects),
            try trellisGraphBackendBenchmark(name: "TrellisGraph through its caller backend: \(chain)mixer -> output", effects: effects),
            try trellisEngineBenchmark(name: "TrellisGraph's engine alone: \(chain)mixer -> output", effects: effects),
        ]
    }
}
