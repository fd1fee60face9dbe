import TrellisCore
import TrellisGraph
import TrellisSession

/// A chain of units processing buffers its owner hands it, as the C interface's chains
/// do: the graph `trellis chain` builds, fed by its input node, run by a `CallerBackend`
/// on the owner's thread with units rendering as they do offline (an LV2 worker's work
/// done in the cycle), so output is the command's, sample for sample.
///
/// Thread: one owner at a time.
public final class ChainProcessor {
    public let graph: Graph
    /// The units' nodes, in order.
    public let stages: [NodeID]
    private let pipelineStages: [ChainPipeline.Stage]
    public let inputChannels: Int
    public let outputChannels: Int
    private let factory: UnitFactory
    private var driver: GraphDriver<CallerBackend>
    /// True once a frame was processed since the last start: a reset then has state to clear.
    private var dirty = false
    /// Where an in-place call's input is copied aside, a slice at a time.
    private var scratch: [[Float]]

    /// Opens `text` (units written as `trellis chain` writes them, without its ends) at
    /// `sampleRate` on `channels` input channels, in slices of at most `blockFrames`.
    public init(text: String, sampleRate: Double, channels: Int, blockFrames: Int, registry: ComponentRegistry) throws(CommandError) {
        guard sampleRate.isFinite, sampleRate >= 1_000, sampleRate <= 768_000 else {
            throw CommandError("sample rate \(sampleRate): give a rate from 1000 to 768000 Hz", kind: .argument)
        }
        guard (1...64).contains(channels) else {
            throw CommandError("channels \(channels): give 1 to 64 input channels", kind: .argument)
        }
        guard (1...65_536).contains(blockFrames) else {
            throw CommandError("block frames \(blockFrames): give 1 to 65536 frames", kind: .argument)
        }
        pipelineStages = try ChainPipeline.units(ChainText.words(text))
        let built = try ChainBuilder(registry: registry, blockSize: blockFrames, rate: sampleRate)
            .build(units: pipelineStages, channels: channels, rate: sampleRate)
        graph = built.graph
        stages = built.stages
        inputChannels = channels
        outputChannels = graph.plan?.outputChannelCount ?? 0
        factory = UnitFactory(registry: registry)
        scratch = Array(repeating: [Float](repeating: 0, count: blockFrames), count: channels)
        driver = try Self.start(graph, inputChannels: channels, outputChannels: outputChannels)
    }

    deinit {
        driver.stop()
        for unit in units { try? unit.setProperty(.offlineRender, .bool(false), scope: .global, element: 0) }
        graph.uninitialize()
    }

    private var units: [any AudioUnit] { stages.compactMap { try? graph.unit($0) } }

    private static func start(_ graph: Graph, inputChannels: Int, outputChannels: Int) throws(CommandError) -> GraphDriver<CallerBackend> {
        // Units do in the cycle what they do on other threads live, as in an offline render.
        for unit in graph.plan?.units.map(\.unit) ?? [] { try? unit.setProperty(.offlineRender, .bool(true), scope: .global, element: 0) }
        let settings = BackendSettings(maximumFrames: graph.maximumFrames, sampleRate: graph.sampleRate)
        let driver = GraphDriver(graph: graph) { source, prepare in
            CallerBackend(source: source, settings: settings, prepare: prepare, inputChannels: inputChannels, outputChannels: outputChannels,
                          betweenSlices: { [graph] () throws(GraphError) in
                              try graph.compensateLatencyChanges()
                              try graph.compileForOneThreadIfSettled()
                          })
        }
        try driver.start()
        return driver
    }

    public var sampleRate: Double { graph.sampleRate }

    /// Frames from input to output.
    public var latency: Int { graph.latency }

    /// Seconds the units keep sounding after the input falls silent, summed.
    public var tail: Double { units.reduce(0) { $0 + max(0, $1.tailTime.isFinite ? $1.tailTime : 0) } }

    /// Processes `frameCount` frames: `input` has one pointer per input channel,
    /// `output` one per output channel; an output may be an input's memory.
    public func process(input: [UnsafePointer<Float>], output: [UnsafeMutablePointer<Float>], frameCount: Int) throws(CommandError) {
        guard input.count == inputChannels, output.count == outputChannels else {
            throw CommandError("the chain takes \(inputChannels) input and \(outputChannels) output channels", kind: .argument)
        }
        guard frameCount > 0 else { return }
        dirty = true
        let aliased = input.contains { source in output.contains { UnsafePointer($0) == source } }
        guard aliased else {
            try driver.backend.render(input: input.map { UnsafeMutablePointer(mutating: $0) }, output: output, frameCount: frameCount)
            return
        }
        // In place: each slice's input is copied aside first.
        let block = scratch.first?.count ?? 0
        var offset = 0
        while offset < frameCount {
            let frames = min(block, frameCount - offset)
            for channel in 0..<inputChannels {
                scratch[channel].withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: input[channel] + offset, count: frames) }
            }
            let sources = (0..<inputChannels).map { channel in scratch[channel].withUnsafeMutableBufferPointer { $0.baseAddress! } }
            try driver.backend.render(input: sources, output: output.map { $0 + offset }, frameCount: frames)
            offset += frames
        }
    }

    /// Clears the units' state and starts the clock again at frame 0; values stay.
    public func reset() throws(CommandError) {
        guard dirty else { return }
        driver.stop()
        do { try graph.reconfigure(sampleRate: graph.sampleRate, maximumFrames: graph.maximumFrames) } catch {
            throw CommandError("chain: reset failed: \(error)")
        }
        _ = graph.engine.changeTransport(.locate(frame: 0))
        _ = graph.engine.changeTransport(.play)
        driver = try Self.start(graph, inputChannels: inputChannels, outputChannels: outputChannels)
        dirty = false
    }

    /// The unit of stage `index`.
    public func unit(_ index: Int) throws(CommandError) -> any AudioUnit {
        guard stages.indices.contains(index), let unit = try? graph.unit(stages[index]) else {
            throw CommandError("unit \(index): the chain has \(stages.count) units (0 to \(stages.count - 1))", kind: .argument)
        }
        return unit
    }

    /// The value of a parameter of stage `index`, by identifier or name.
    public func value(_ index: Int, _ name: String) throws(CommandError) -> Float {
        let unit = try unit(index)
        do {
            let info = try factory.parameter(name, of: unit)
            return try unit.parameterValue(info.address)
        } catch let error as UnitFactoryError {
            throw pipelineStages[index].failure(error)
        } catch {
            throw CommandError("chain: \"\(pipelineStages[index].word)\": \(error)", kind: .parameter)
        }
    }

    /// Sets a parameter of stage `index` as `name=value` in the chain's text would.
    public func set(_ index: Int, _ name: String, _ value: Double) throws(CommandError) {
        let unit = try unit(index)
        guard value.isFinite else {
            throw CommandError("chain: \"\(pipelineStages[index].word)\": \(name)=\(value): give a finite number", kind: .parameter)
        }
        let text = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        do { try factory.apply(NodeDescription.Setting(name: name, value: text), to: unit) } catch {
            throw pipelineStages[index].failure(error)
        }
    }
}
