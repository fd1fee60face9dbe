import Synchronization
import TrellisAudioFile
import TrellisCore
import TrellisEngine
import TrellisGraph

/// What an offline render does: how many frames, in slices of what length, from which
/// inputs into which writer, waiting for which streaming units.
public struct OfflineJob {
    public var frameCount: Int
    public var sliceFrames: Int
    public var inputs: [any OfflineInput]
    public var inputChannels: Int
    public var outputChannels: Int
    public var writer: AudioFileWriter
    /// Players, recorders and taps stream through their own threads; an offline render
    /// outruns real time, so it waits for them before each cycle instead of underrunning.
    public var participants: [any OfflineStreaming]
    /// Gets (frames done, total) after each chunk.
    public var progress: ((Int, Int) -> Void)?
    /// Runs after each slice, off the audio-thread role, on the render thread: the
    /// graph re-compensates a latency that changed there, at the same frame every render.
    public var betweenSlices: (() throws(GraphError) -> Void)?
    /// Sees each chunk of the output just before it is written, on the writer's thread
    /// (a loudness meter): whatever it costs runs beside the render, not in it.
    public var observeOutput: ((AudioBuffers, Int) -> Void)?

    public init(
        frameCount: Int, sliceFrames: Int, inputs: [any OfflineInput], inputChannels: Int, outputChannels: Int,
        writer: AudioFileWriter, participants: [any OfflineStreaming] = [], progress: ((Int, Int) -> Void)? = nil,
        betweenSlices: (() throws(GraphError) -> Void)? = nil, observeOutput: ((AudioBuffers, Int) -> Void)? = nil
    ) {
        self.betweenSlices = betweenSlices
        self.observeOutput = observeOutput
        self.frameCount = max(0, frameCount)
        self.sliceFrames = max(1, sliceFrames)
        self.inputs = inputs
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.writer = writer
        self.participants = participants
        self.progress = progress
    }
}

/// The offline backend: runs a render source's cycles on the calling thread, slice by
/// slice, as fast as the machine allows, with disk threads reading the inputs ahead and
/// writing the output behind (`OfflinePipeline`). Each cycle is the `BackendCycle` the
/// JACK head node hands the same source live, at consecutive sample times from 0.
///
/// Thread: `start` on the control thread, which becomes the render thread until it
/// returns; `stop` on any thread ends the render after the current slice.
public final class OfflineBackend: AudioBackend, @unchecked Sendable {
    private let source: any RenderSource
    private let prepare: BackendPrepare
    private let job: OfflineJob
    private let prepared: BackendSettings
    private let stopping = Atomic<Bool>(false)
    private let done = Atomic<Int>(0)
    private let started = Atomic<Bool>(false)

    /// A backend that will render `job` from `source`, prepared for `settings` (whose
    /// `maximumFrames` is at least the job's slice).
    public init(source: any RenderSource, settings: BackendSettings, prepare: @escaping BackendPrepare, job: OfflineJob) {
        self.source = source
        self.prepare = prepare
        self.job = job
        prepared = settings
    }

    public var settings: BackendSettings? { started.load(ordering: .acquiring) ? prepared : nil }

    /// Frames rendered so far; all of them once `start` returned. Thread: any.
    public var framesRendered: Int { done.load(ordering: .acquiring) }

    public func stop() { stopping.store(true, ordering: .releasing) }

    public func start() throws(OfflineRenderError) {
        do { try prepare(prepared) } catch let error as GraphError { throw .graph(error) } catch { throw .prepare("\(error)") }
        started.store(true, ordering: .releasing)
        let slice = min(job.sliceFrames, prepared.maximumFrames)
        let inputChannels = job.inputChannels, channels = job.outputChannels
        let chunkFrames = OfflineRenderer.chunkBytes / (MemoryLayout<Float>.size * max(1, inputChannels + channels))
        let pipeline = OfflinePipeline(
            frameCount: job.frameCount, chunkFrames: slice * max(1, chunkFrames / slice), depth: OfflineRenderer.chunkDepth,
            inputs: job.inputs, inputChannelCount: inputChannels, outputChannelCount: channels, writer: job.writer,
            observeOutput: job.observeOutput)
        let memory = Arena()
        defer { withExtendedLifetime(memory) {} }
        let inputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>> = memory.take(inputChannels)
        let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>> = memory.take(channels)
        let cycle: UnsafeMutablePointer<BackendCycle> = memory.take(1)
        let entry = source.renderEntry
        var failure: OfflineRenderError?
        var floatState = AudioThread.enter()
        defer { AudioThread.leave(restoring: floatState) }
        pipeline.start()
        chunks: for index in 0..<pipeline.chunkCount {
            guard !stopping.load(ordering: .relaxed), pipeline.waitForInput(index), pipeline.waitForOutputSlot(index) else { break }
            let input = pipeline.inputs[index % pipeline.depth][0], output = pipeline.outputs[index % pipeline.depth][0]
            let count = pipeline.frames(ofChunk: index)
            var offset = 0
            while offset < count {
                let frames = min(slice, count - offset)
                for channel in 0..<inputChannels { inputTable[channel] = input[channel] + offset }
                for channel in 0..<channels { outputTable[channel] = output[channel] + offset }
                for participant in job.participants { participant.waitForStreaming(frameCount: frames) }
                cycle.initialize(to: BackendCycle(
                    frameCount: frames, timeStamp: AudioTimeStamp(sampleTime: Int64(done.load(ordering: .relaxed)), hostTime: HostClock.now()),
                    input: inputChannels > 0 ? AudioBuffers(channelPointers: UnsafePointer(inputTable), channelCount: inputChannels) : .empty,
                    output: AudioBuffers(channelPointers: UnsafePointer(outputTable), channelCount: channels)))
                let status = entry.map { $0.render(cycle) } ?? source.render(
                    frameCount: frames, timeStamp: cycle.pointee.timeStamp, input: cycle.pointee.input, output: cycle.pointee.output)
                guard status == .ok else {
                    failure = .render(status)
                    break chunks
                }
                offset += frames
                done.add(frames, ordering: .releasing)
                if let betweenSlices = job.betweenSlices {
                    AudioThread.leave(restoring: floatState)
                    defer { floatState = AudioThread.enter() }
                    do { try betweenSlices() } catch {
                        failure = .graph(error)
                        break chunks
                    }
                }
            }
            pipeline.releaseInput(index)
            pipeline.publishOutput(index)
            job.progress?(done.load(ordering: .relaxed), job.frameCount)
        }
        // A stage that failed (a file that cannot be read on) ends the loop too; every
        // stage must then be told, or the writer waits for a chunk that never comes.
        if failure != nil || stopping.load(ordering: .relaxed) || pipeline.error != nil { pipeline.cancel() }
        pipeline.join()
        if failure == nil, let error = pipeline.error { failure = .file(error) }
        if let failure { throw failure }
    }
}
