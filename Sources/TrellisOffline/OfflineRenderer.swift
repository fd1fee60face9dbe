import TrellisAudioFile
import TrellisCore
import TrellisUnits
import TrellisEngine
import TrellisGraph

/// Renders a graph into a file, from optional input files, as fast as the machine
/// allows: an `OfflineBackend` run by a `GraphDriver`, the same program on the same
/// engine as the JACK head node runs live.
///
/// Thread: control (the calling thread becomes the render thread for the duration).
public struct OfflineRenderer {
    public let graph: Graph
    public var sliceFrames: Int

    public init(graph: Graph, sliceFrames: Int? = nil) {
        self.graph = graph
        self.sliceFrames = min(sliceFrames ?? graph.maximumFrames, graph.maximumFrames)
    }

    /// Renders `frameCount` frames into `path`. The graph's input node, if any, reads
    /// from `input` (silence after its end), converted to the graph's rate at
    /// `conversion` quality if it is at another. `progress` gets (frames done, total) after each slice. Returns the
    /// frames written.
    @discardableResult
    public func render(
        frameCount: Int,
        to path: String,
        container: AudioFileContainer? = nil,
        sampleType: SampleType? = nil,
        dither: Bool = true,
        quality: Double? = nil,
        input: AudioFileReader? = nil,
        conversion: SampleRateConverter.Quality = .high,
        progress: ((Int, Int) -> Void)? = nil,
        observeOutput: ((AudioBuffers, Int) -> Void)? = nil
    ) throws(OfflineRenderError) -> Int {
        let inputs: [any OfflineInput]
        if let input, input.info.sampleRate != graph.sampleRate {
            inputs = [try ResampledFileInput(reader: input, rate: graph.sampleRate, quality: conversion)]
        } else {
            inputs = input.map { [FileInput(reader: $0)] } ?? []
        }
        return try render(frameCount: frameCount, to: path, container: container, sampleType: sampleType, dither: dither,
                          quality: quality, inputs: inputs, progress: progress, observeOutput: observeOutput)
    }

    /// Renders with the graph's input channels fed, in order, by `inputs` (each filling
    /// as many channels as it has; silence after the last). `sampleType` defaults to
    /// what the container holds (`AudioFileContainer.defaultSampleType`); float made
    /// into 16 or 24 bits is dithered unless `dither` is false. `observeOutput` sees the
    /// output as it is written, on the writer's thread. Returns the frames written.
    @discardableResult
    public func render(
        frameCount: Int,
        to path: String,
        container: AudioFileContainer? = nil,
        sampleType: SampleType? = nil,
        dither: Bool = true,
        quality: Double? = nil,
        inputs: [any OfflineInput],
        progress: ((Int, Int) -> Void)? = nil,
        observeOutput: ((AudioBuffers, Int) -> Void)? = nil
    ) throws(OfflineRenderError) -> Int {
        guard let plan = graph.plan else { throw .notInitialized }
        let writer: AudioFileWriter
        let previous = ReplacedFile(path: path)
        do {
            let type = sampleType ?? (container ?? AudioFileContainer(path: path))?.defaultSampleType ?? .float32
            writer = try AudioFileWriter(
                path: path, container: container, sampleType: type, sampleRate: graph.sampleRate,
                channelCount: plan.outputChannelCount, dither: dither, quality: quality)
        } catch {
            previous.restore()
            throw .file(error)
        }
        previous.replaced()
        defer { previous.finish() }
        let job = OfflineJob(
            frameCount: frameCount, sliceFrames: sliceFrames, inputs: inputs, inputChannels: plan.inputChannelCount,
            outputChannels: plan.outputChannelCount, writer: writer, participants: plan.streamingParticipants, progress: progress,
            betweenSlices: { [graph] () throws(GraphError) in
                try graph.compensateLatencyChanges()
                try graph.compileForOneThreadIfSettled()
            }, observeOutput: observeOutput)
        // Offline, units do in the render call what they do on other threads live (an
        // LV2 worker), so two renders of a session are the same file.
        let units = Self.distinct(plan.units.map(\.unit))
        for unit in units { try? unit.setProperty(.offlineRender, .bool(true), scope: .global, element: 0) }
        defer { for unit in units { try? unit.setProperty(.offlineRender, .bool(false), scope: .global, element: 0) } }
        let settings = BackendSettings(maximumFrames: graph.maximumFrames, sampleRate: graph.sampleRate)
        let driver = GraphDriver(graph: graph) { source, prepare in
            OfflineBackend(source: source, settings: settings, prepare: prepare, job: job)
        }
        defer { driver.stop() }
        try driver.start()
        // The finish pass of `driver.stop` reports what plugins logged: those in bridge
        // processes send theirs now.
        for unit in units { (unit as? any IsolatableUnit)?.collectIsolatedMessages() }
        do { try writer.close() } catch { throw .file(error) }
        return driver.backend.framesRendered
    }

    private static func distinct(_ units: [any AudioUnit]) -> [any AudioUnit] {
        var seen = Set<ObjectIdentifier>()
        return units.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }

    /// Slice length that offline renders run best at: long enough that per-slice work
    /// (dispatch, smoothing, metering, coefficient checks) vanishes against the DSP.
    public static let preferredSliceFrames = 4096

    /// Readies a graph set up for live periods (a session's 128-frame block) to render
    /// offline in slices of `sliceFrames`: its units are re-initialized for the larger
    /// slices (DSP state cleared, parameters kept), so render it with
    /// `OfflineRenderer(graph:)` afterwards. Call it before starting players or
    /// recorders. A graph that already takes such slices is left alone. Thread: control.
    public static func prepareForOffline(_ graph: Graph, sliceFrames: Int = preferredSliceFrames) throws(GraphError) {
        guard sliceFrames > graph.maximumFrames else { return }
        try graph.prepare(frames: sliceFrames, sampleRate: graph.sampleRate)
    }

    /// Bytes of samples (inputs and outputs) per chunk handed between the disk threads
    /// and the renderer, rounded down to whole slices (at least one): large enough that
    /// hand-overs are rare, small enough that the chunks in flight stay in cache.
    static let chunkBytes = 128 * 1024
    /// Chunks in flight in each direction.
    static let chunkDepth = 4
}

/// Something that feeds channels of a graph's input during an offline render: a file,
/// or one channel of a file standing in for a JACK port.
public protocol OfflineInput {
    var channelCount: Int { get }
    /// Fills `frameCount` frames of each channel of `buffers` (already zeroed, unless
    /// `writesEveryFrame`); past its end an input leaves silence.
    func fill(_ buffers: AudioBuffers, frameCount: Int) throws(AudioFileError)
    /// True when `fill` writes every frame it is asked for (silence past the end
    /// included), so its channels need no zeroing first. Defaults to false.
    var writesEveryFrame: Bool { get }
}

extension OfflineInput {
    public var writesEveryFrame: Bool { false }
}

/// A whole file as consecutive input channels.
public struct FileInput: OfflineInput {
    public let reader: AudioFileReader
    public init(reader: AudioFileReader) { self.reader = reader }
    public var channelCount: Int { reader.info.channelCount }
    public var writesEveryFrame: Bool { true }
    public func fill(_ buffers: AudioBuffers, frameCount: Int) throws(AudioFileError) {
        guard buffers.channelCount == reader.info.channelCount else {
            let scratch = AudioBufferList(channelCount: reader.info.channelCount, frameCapacity: frameCount)
            _ = try reader.read(into: scratch[0], frameCount: frameCount)
            buffers.copy(from: scratch[0], frameCount: frameCount)
            return
        }
        let read = try reader.read(into: buffers, frameCount: frameCount)
        for channel in 0..<buffers.channelCount { (buffers[channel] + read).update(repeating: 0, count: frameCount - read) }
    }
}

public enum OfflineRenderError: Error, CustomStringConvertible {
    case notInitialized
    case file(AudioFileError)
    case render(RenderStatus)
    case graph(GraphError)
    case prepare(String)

    public var description: String {
        switch self {
        case .notInitialized: return "the graph must be initialized before it is rendered"
        case .file(let error): return "\(error)"
        case .render(let status): return "rendering failed: \(status)"
        case .graph(let error): return "\(error)"
        case .prepare(let message): return "preparing the graph failed: \(message)"
        }
    }
}
