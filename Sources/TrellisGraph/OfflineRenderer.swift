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
        guard let plan = graph.plan else { throw .notInitialized }
        let channels = plan.outputChannelCount
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(path: path, container: container, sampleType: sampleType, sampleRate: graph.sampleRate, channelCount: channels)
        } catch { throw .file(error) }
        if let input, input.info.sampleRate != graph.sampleRate {
            throw .inputRate(path: input.path, fileRate: input.info.sampleRate, graphRate: graph.sampleRate)
        }
        let output = AudioBufferList(channelCount: channels, frameCapacity: sliceFrames)
        let inputBuffers = AudioBufferList(channelCount: max(1, plan.inputChannelCount), frameCapacity: sliceFrames)
        var done = 0
        graph.engine.startRendering()
        defer { graph.engine.stopRendering() }
        while done < frameCount {
            let count = min(sliceFrames, frameCount - done)
            if let input {
                let read: Int
                do { read = try input.read(into: inputBuffers[0], frameCount: count) } catch { throw .file(error) }
                for channel in 0..<inputBuffers[0].channelCount {
                    (inputBuffers[0][channel] + read).update(repeating: 0, count: count - read)
                }
            }
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
