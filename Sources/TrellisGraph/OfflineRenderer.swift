import TrellisAudioFile
import TrellisCore
import TrellisEngine

/// The offline backend: pulls a graph's program as fast as the machine allows, from an
/// optional input file into an output file. It runs the same program, on the same
/// engine, as the JACK head node does live.
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
    /// from `input` (silence after its end). `progress` gets (frames done, total) after
    /// each slice. Returns the frames written.
    @discardableResult
    public func render(
        frameCount: Int,
        to path: String,
        container: AudioFileContainer? = nil,
        sampleType: SampleType = .float32,
        input: AudioFileReader? = nil,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(OfflineRenderError) -> Int {
        if let input, input.info.sampleRate != graph.sampleRate {
            throw .inputRate(path: input.path, fileRate: input.info.sampleRate, graphRate: graph.sampleRate)
        }
        return try render(frameCount: frameCount, to: path, container: container, sampleType: sampleType,
                          inputs: input.map { [FileInput(reader: $0)] } ?? [], progress: progress)
    }

    /// Renders with the graph's input channels fed, in order, by `inputs` (each filling
    /// as many channels as it has; silence after the last). Returns the frames written.
    @discardableResult
    public func render(
        frameCount: Int,
        to path: String,
        container: AudioFileContainer? = nil,
        sampleType: SampleType = .float32,
        inputs: [any OfflineInput],
        progress: ((Int, Int) -> Void)? = nil
    ) throws(OfflineRenderError) -> Int {
        guard let plan = graph.plan else { throw .notInitialized }
        let channels = plan.outputChannelCount
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(path: path, container: container, sampleType: sampleType, sampleRate: graph.sampleRate, channelCount: channels)
        } catch { throw .file(error) }
        let output = AudioBufferList(channelCount: channels, frameCapacity: sliceFrames)
        let inputBuffers = AudioBufferList(channelCount: max(1, plan.inputChannelCount), frameCapacity: sliceFrames)
        let channelTable = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: max(1, plan.inputChannelCount))
        defer { channelTable.deallocate() }
        // Players, recorders and taps stream through their own threads; an offline render
        // outruns real time, so it waits for them before each cycle instead of underrunning.
        let participants = plan.streamingParticipants
        var done = 0
        graph.engine.startRendering()
        let floatState = AudioThread.enter()
        defer {
            AudioThread.leave(restoring: floatState)
            graph.engine.stopRendering()
        }
        while done < frameCount {
            let count = min(sliceFrames, frameCount - done)
            inputBuffers[0].clear(frameCount: count)
            var channel = 0
            for input in inputs where channel < plan.inputChannelCount {
                let width = min(input.channelCount, plan.inputChannelCount - channel)
                for offset in 0..<width { channelTable[offset] = inputBuffers[0][channel + offset] }
                do {
                    try input.fill(AudioBuffers(channelPointers: UnsafePointer(channelTable), channelCount: width), frameCount: count)
                } catch { throw .file(error) }
                channel += width
            }
            for participant in participants { participant.waitForStreaming(frameCount: count) }
            let status = graph.engine.render(
                frameCount: count, timeStamp: AudioTimeStamp(sampleTime: Int64(done), hostTime: HostClock.now()),
                input: plan.inputChannelCount > 0 ? inputBuffers[0] : .empty, output: output[0])
            guard status == .ok else { throw .render(status) }
            do { try writer.write(from: output[0], frameCount: count) } catch { throw .file(error) }
            done += count
            progress?(done, frameCount)
            graph.engine.collectRetired()
        }
        do { try writer.close() } catch { throw .file(error) }
        return done
    }
}

/// Something that feeds channels of a graph's input during an offline render: a file,
/// or one channel of a file standing in for a JACK port.
public protocol OfflineInput {
    var channelCount: Int { get }
    /// Fills `frameCount` frames of each channel of `buffers` (already zeroed); past its
    /// end an input leaves silence.
    func fill(_ buffers: AudioBuffers, frameCount: Int) throws(AudioFileError)
}

/// A whole file as consecutive input channels.
public struct FileInput: OfflineInput {
    public let reader: AudioFileReader
    public init(reader: AudioFileReader) { self.reader = reader }
    public var channelCount: Int { reader.info.channelCount }
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
    case inputRate(path: String, fileRate: Double, graphRate: Double)

    public var description: String {
        switch self {
        case .notInitialized: return "the graph must be initialized before it is rendered"
        case .file(let error): return "\(error)"
        case .render(let status): return "rendering failed: \(status)"
        case .inputRate(let path, let fileRate, let graphRate):
            return "\(path): the file is at \(Int(fileRate)) Hz but the graph runs at \(Int(graphRate)) Hz"
        }
    }
}
