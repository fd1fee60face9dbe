import TrellisChain
import TrellisCore
import TrellisEngine
import TrellisGraph

public enum AVAudioEngineManualRenderingMode: Int, Sendable {
    /// Renders as fast as asked, waiting for disk reads: every render is exact.
    case offline = 0
    /// Renders within a real-time budget; what a disk thread has not read is silence.
    case realtime = 1
}

public enum AVAudioEngineManualRenderingStatus: Int, Sendable {
    case error = -1
    case success = 0
    case insufficientDataFromInputNode = 1
    case cannotDoInCurrentContext = 2
}

extension AVAudioEngine {
    /// Renders the engine on the caller's thread instead of to a device: `renderOffline`
    /// pulls `format` (its rate and channel count are the output node's) in slices of up
    /// to `maximumFrameCount`. Only while stopped.
    public func enableManualRenderingMode(_ mode: AVAudioEngineManualRenderingMode, format pcmFormat: AVAudioFormat, maximumFrameCount: AVAudioFrameCount) throws {
        guard !isRunning else { throw AVAudioError(.state, "enableManualRenderingMode: stop the engine first") }
        guard pcmFormat.commonFormat != .otherFormat, (1...65_536).contains(maximumFrameCount) else {
            throw AVAudioError(.settings, "enableManualRenderingMode: give a PCM format and 1 ... 65536 frames, not \(pcmFormat) and \(maximumFrameCount)")
        }
        manual?.stop()
        do {
            graph.uninitialize()
            try graph.reconfigure(sampleRate: pcmFormat.sampleRate, maximumFrames: Int(maximumFrameCount))
            var output = try outputNode.unit.format(scope: .input, element: 0)
            output.channelCount = Int(pcmFormat.channelCount)
            try outputNode.unit.setFormat(output, scope: .input, element: 0)
            try outputNode.unit.setFormat(output, scope: .output, element: 0)
        } catch { throw AVAudioError(.graph, "enableManualRenderingMode: \(error)") }
        manual = ManualRendering(graph: graph, mode: mode, format: pcmFormat, maximumFrames: Int(maximumFrameCount))
    }

    /// Back to rendering to a device (after `stop`).
    public func disableManualRenderingMode() {
        manual?.stop()
        manual = nil
    }

    public var isInManualRenderingMode: Bool { manual != nil }
    public var manualRenderingMode: AVAudioEngineManualRenderingMode { manual?.mode ?? .offline }
    public var manualRenderingFormat: AVAudioFormat { manual?.format ?? outputNode.outputFormat(forBus: 0) }
    public var manualRenderingMaximumFrameCount: AVAudioFrameCount { AVAudioFrameCount(manual?.maximumFrames ?? 0) }
    /// Frames rendered since `start`.
    public var manualRenderingSampleTime: AVAudioFramePosition { manual?.sampleTime ?? 0 }

    /// Renders `numberOfFrames` (at most the buffer's capacity and the maximum frame
    /// count) into `buffer`, which must be in the manual rendering format.
    public func renderOffline(_ numberOfFrames: AVAudioFrameCount, to buffer: AVAudioPCMBuffer) throws -> AVAudioEngineManualRenderingStatus {
        guard let manual, isRunning else { return .cannotDoInCurrentContext }
        guard buffer.format === manual.format || buffer.format == manual.format else {
            throw AVAudioError(.state, "renderOffline: the buffer is \(buffer.format), the manual rendering format \(manual.format)")
        }
        guard numberOfFrames <= buffer.frameCapacity, Int(numberOfFrames) <= manual.maximumFrames else {
            throw AVAudioError(.state, "renderOffline: \(numberOfFrames) frames is more than the buffer's \(buffer.frameCapacity) or the maximum \(manual.maximumFrames)")
        }
        return try manual.render(Int(numberOfFrames), into: buffer)
    }

    /// Renders into an `AudioBufferList` of the manual rendering format (deinterleaved
    /// floats, one buffer per channel). In realtime mode it may be called on a real-time
    /// thread: it allocates, locks and waits for nothing (what a file player's disk thread
    /// has not read yet is silence). In offline mode it waits for disk reads, as
    /// `renderOffline` does. The block holds what it needs: it stays safe to call after
    /// the engine stops (it then returns `.cannotDoInCurrentContext`).
    public var manualRenderingBlock: AVAudioEngineManualRenderingBlock {
        guard let manual else {
            return { _, _, error in
                error?.pointee = ManualRenderingTarget.kAudioUnitErr_Uninitialized
                return .cannotDoInCurrentContext
            }
        }
        let box = manual.realtime
        if manual.mode == .realtime {
            return { frames, list, error in ManualRenderingTarget.render(UnsafePointer(box.target), frames: Int(frames), list: list, error: error) }
        }
        return { [weak manual] frames, list, error in
            guard let manual else { return .cannotDoInCurrentContext }
            manual.waitForStreaming(Int(frames))
            return ManualRenderingTarget.render(UnsafePointer(box.target), frames: Int(frames), list: list, error: error)
        }
    }
}

/// The engine rendered by its caller: the graph driven by a `CallerBackend`, with the
/// disk threads of players and recorders waited for before each slice (offline).
final class ManualRendering {
    let graph: Graph
    let mode: AVAudioEngineManualRenderingMode
    let format: AVAudioFormat
    let maximumFrames: Int
    private var driver: GraphDriver<CallerBackend>?
    /// Float frames for a buffer that is not in the standard format.
    private let scratch: TrellisCore.AudioBufferList
    /// What `manualRenderingBlock` renders with.
    let realtime: ManualRenderingTargetBox
    /// The input node's block while running.
    private var input: ManualRenderingInput?
    private let streaming: StreamingWait
    /// The buffer list `renderOffline` points at the caller's buffer.
    private let outputList: UnsafeMutableAudioBufferListPointer

    init(graph: Graph, mode: AVAudioEngineManualRenderingMode, format: AVAudioFormat, maximumFrames: Int) {
        self.graph = graph
        self.mode = mode
        self.format = format
        self.maximumFrames = maximumFrames
        streaming = StreamingWait(graph: graph)
        scratch = TrellisCore.AudioBufferList(channelCount: Int(format.channelCount), frameCapacity: maximumFrames)
        realtime = ManualRenderingTargetBox(channels: Int(format.channelCount), maximumFrames: maximumFrames)
        outputList = AudioBufferList.allocate(maximumBuffers: Int(format.channelCount))
    }

    var sampleTime: AVAudioFramePosition { AVAudioFramePosition(driver?.backend.framesRendered ?? 0) }

    /// Starts the graph, its input read from `input`'s block when given.
    func start(input: ManualRenderingInput?) throws(AVAudioError) {
        guard driver == nil else { return }
        if let input, input.format.sampleRate != format.sampleRate {
            throw AVAudioError(.settings, "the input node's block gives \(input.format.sampleRate) Hz; the engine renders at \(format.sampleRate) Hz")
        }
        self.input = input
        let offline = mode == .offline
        for node in graph.nodes { try? node.unit.setProperty(.offlineRender, .bool(offline), scope: .global, element: 0) }
        let settings = BackendSettings(maximumFrames: maximumFrames, sampleRate: format.sampleRate)
        let channels = Int(format.channelCount)
        let driver = GraphDriver(graph: graph) { [graph, maximumFrames, streaming] source, prepare in
            CallerBackend(source: source, settings: settings, prepare: prepare, inputChannels: input?.channels ?? 0, outputChannels: channels,
                          betweenSlices: { () throws(GraphError) in
                              try graph.compensateLatencyChanges()
                              if offline { streaming.wait(maximumFrames) }
                          })
        }
        do { try driver.start() } catch { throw AVAudioError(.graph, "starting the engine failed: \(error)") }
        graph.engine.changeTransport(.play)
        self.driver = driver
        realtime.attach(entry: driver.backend.renderEntry, position: driver.backend.position, input: input)
    }

    func stop() {
        realtime.detach()
        driver?.stop()
        driver = nil
        input = nil
    }

    /// Blocks until the disk threads are `frames` ahead. Thread: the rendering one.
    func waitForStreaming(_ frames: Int) { streaming.wait(frames) }

    /// Renders `frames` into `buffer` through the same target the manual rendering block
    /// uses, after the disk readers (offline) and a latency change the graph compensates.
    func render(_ frames: Int, into buffer: AVAudioPCMBuffer) throws(AVAudioError) -> AVAudioEngineManualRenderingStatus {
        if mode == .offline { waitForStreaming(frames) }
        do { try graph.compensateLatencyChanges() } catch { throw AVAudioError(.graph, "renderOffline: \(error)") }
        let standard = buffer.format.isStandard
        for channel in 0..<Int(format.channelCount) {
            let samples = standard ? buffer.floatChannelData![channel] : scratch[0][channel]
            outputList[channel] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(frames &* 4), mData: UnsafeMutableRawPointer(samples))
        }
        var code: OSStatus = noErr
        let status = ManualRenderingTarget.render(UnsafePointer(realtime.target), frames: frames, list: outputList.unsafeMutablePointer, error: &code)
        switch status {
        case .success, .insufficientDataFromInputNode: break
        case .cannotDoInCurrentContext: throw AVAudioError(.state, "renderOffline: the engine is not running")
        case .error: throw AVAudioError(.graph, "renderOffline: the program could not render (status \(code))")
        }
        if !standard {
            for channel in 0..<Int(format.channelCount) {
                for frame in 0..<frames { buffer.setSample(scratch[0][channel][frame], channel: channel, frame: frame) }
            }
        }
        buffer.frameLength = AVAudioFrameCount(frames)
        return status
    }

    deinit { UnsafeMutableRawPointer(outputList.unsafeMutablePointer).deallocate() }
}

/// Waits for the program's disk readers, looked up again only when the graph changed.
/// Thread: the rendering one.
final class StreamingWait {
    private let graph: Graph
    /// The graph's revision `units` were looked up at (none before the first plan).
    private var revision: UInt64?
    private var units: [any OfflineStreaming] = []

    init(graph: Graph) { self.graph = graph }

    /// Blocks until every reader is `frames` ahead.
    func wait(_ frames: Int) {
        let now = graph.revision
        if revision != now {
            units = graph.plan?.streamingParticipants ?? []
            revision = graph.plan == nil ? nil : now
        }
        for unit in units { unit.waitForStreaming(frameCount: frames) }
    }
}
