import Glibc
import Synchronization
import TrellisAudioFile
import TrellisCore

/// The offline renderer's disk side: a read-ahead thread fills chunks of input frames
/// and a write-behind thread drains chunks of output frames, so reading, decoding,
/// rendering, interleaving and writing overlap instead of taking turns on one core.
///
/// Chunks circulate through `depth` slots: slot `i % depth` carries chunk `i` from the
/// reader to the renderer (`inputs`) and from the renderer to the writer (`outputs`).
/// Counting semaphores hand the slots over, so each chunk's memory belongs to exactly
/// one thread at a time. Made, run and joined by the thread that renders.
final class OfflinePipeline: @unchecked Sendable {
    let chunkFrames: Int
    let chunkCount: Int
    let frameCount: Int
    let depth: Int
    let inputs: [AudioBufferList]
    let outputs: [AudioBufferList]

    private let sources: [any OfflineInput]
    private let inputChannelCount: Int
    private let writer: AudioFileWriter
    private let observeOutput: ((AudioBuffers, Int) -> Void)?
    private let inputFree: Semaphore, inputFilled = Semaphore()
    private let outputFree: Semaphore, outputFilled = Semaphore()
    private var reader: StageThread?
    private var drain: StageThread?
    /// Set by the renderer when it gives up, so the stages stop at their next hand-over.
    private let cancelled = Atomic<Bool>(false)
    /// Set (releasing) by a stage after it stores its error, so the renderer reads the
    /// error only once the flag says it is there.
    private let failed = Atomic<Bool>(false)
    private var stageError: AudioFileError?

    /// Thread: the rendering thread.
    init(frameCount: Int, chunkFrames: Int, depth: Int, inputs sources: [any OfflineInput], inputChannelCount: Int,
         outputChannelCount: Int, writer: AudioFileWriter, observeOutput: ((AudioBuffers, Int) -> Void)? = nil) {
        self.observeOutput = observeOutput
        self.frameCount = frameCount
        self.chunkFrames = chunkFrames
        self.chunkCount = (frameCount + chunkFrames - 1) / chunkFrames
        self.depth = depth
        self.sources = sources
        self.inputChannelCount = inputChannelCount
        self.writer = writer
        inputs = (0..<depth).map { _ in AudioBufferList(channelCount: max(1, inputChannelCount), frameCapacity: chunkFrames) }
        outputs = (0..<depth).map { _ in AudioBufferList(channelCount: max(1, outputChannelCount), frameCapacity: chunkFrames) }
        inputFree = Semaphore(value: UInt32(depth))
        outputFree = Semaphore(value: UInt32(depth))
    }

    /// Frames in chunk `index`.
    func frames(ofChunk index: Int) -> Int { min(chunkFrames, frameCount - index * chunkFrames) }

    /// Starts the reader (when there are inputs) and the writer.
    func start() {
        if inputChannelCount > 0 { reader = StageThread { [self] in readAll() } }
        drain = StageThread { [self] in writeAll() }
    }

    /// The error that stopped the reader or the writer, once one has.
    var error: AudioFileError? { failed.load(ordering: .acquiring) ? stageError : nil }

    /// Waits for chunk `index`'s input; false when a stage failed.
    func waitForInput(_ index: Int) -> Bool {
        if inputChannelCount > 0 { inputFilled.wait() }
        return !failed.load(ordering: .acquiring)
    }

    /// Gives chunk `index`'s input slot back to the reader.
    func releaseInput(_ index: Int) {
        if inputChannelCount > 0 { inputFree.post() }
    }

    /// Waits for a free output slot for chunk `index`; false when a stage failed.
    func waitForOutputSlot(_ index: Int) -> Bool {
        outputFree.wait()
        return !failed.load(ordering: .acquiring)
    }

    /// Hands chunk `index`'s output to the writer.
    func publishOutput(_ index: Int) { outputFilled.post() }

    /// Waits for the stages to finish. After a failure, `cancel` first.
    func join() {
        reader?.join()
        drain?.join()
        reader = nil
        drain = nil
    }

    /// Stops both stages at their next hand-over (for a render that ends early).
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        inputFree.post()
        outputFilled.post()
    }

    private var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    private func readAll() {
        let memory = Arena(firstBlock: 1024)
        defer { withExtendedLifetime(memory) {} }
        let table: UnsafeMutablePointer<UnsafeMutablePointer<Float>> = memory.take(inputChannelCount)
        for index in 0..<chunkCount {
            inputFree.wait()
            if isCancelled { return }
            let buffers = inputs[index % depth][0]
            let count = frames(ofChunk: index)
            var channel = 0
            // Channels no input covers stay zero from allocation.
            for source in sources where channel < inputChannelCount {
                let width = min(source.channelCount, inputChannelCount - channel)
                for offset in 0..<width { table[offset] = buffers[channel + offset] }
                if !source.writesEveryFrame {
                    for offset in 0..<width { table[offset].update(repeating: 0, count: count) }
                }
                do {
                    try source.fill(AudioBuffers(channelPointers: UnsafePointer(table), channelCount: width), frameCount: count)
                } catch {
                    fail(error)
                    return
                }
                channel += width
            }
            inputFilled.post()
        }
    }

    private func writeAll() {
        for index in 0..<chunkCount {
            outputFilled.wait()
            if isCancelled { return }
            observeOutput?(outputs[index % depth][0], frames(ofChunk: index))
            do {
                try writer.write(from: outputs[index % depth][0], frameCount: frames(ofChunk: index))
            } catch {
                fail(error)
                return
            }
            outputFree.post()
        }
    }

    /// Records a stage's error and wakes the renderer wherever it waits, for good.
    private func fail(_ error: AudioFileError) {
        stageError = error
        failed.store(true, ordering: .releasing)
        for _ in 0...depth {
            inputFilled.post()
            outputFree.post()
        }
    }
}
