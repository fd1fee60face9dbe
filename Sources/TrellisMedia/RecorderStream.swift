import Glibc
import TrellisAudioFile
import TrellisCore
import TrellisUnits

/// The disk side of a recording: the file writer, the rate converter and a batch
/// buffer. It drains the recorder's ring into the file; after a write fails it keeps
/// draining (so the render thread never backs up) but writes no more.
///
/// Thread: whoever holds the recorder's lock (the butler, or control at stop).
final class RecorderStream {
    let writer: AudioFileWriter
    let take: UInt64
    private(set) var failure: MediaError?
    private let unitName: String
    private let resampler: SampleRateConverter?
    private let batch: AudioBufferList
    private var batchFrames = 0
    private let mapped: AudioBufferList
    private let converted: AudioBufferList
    private let inputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let memory = Arena(firstBlock: 1024)

    /// Thread: control.
    init(writer: AudioFileWriter, busRate: Double, busChannels: Int, take: UInt64, unitName: String) throws(MediaError) {
        self.writer = writer
        self.take = take
        self.unitName = unitName
        let batchCapacity = 4096
        resampler = busRate == writer.sampleRate ? nil
            : try makeConverter(from: busRate, to: writer.sampleRate, channels: writer.channelCount)
        batch = AudioBufferList(channelCount: busChannels, frameCapacity: batchCapacity)
        mapped = AudioBufferList(channelCount: writer.channelCount, frameCapacity: batchCapacity)
        converted = AudioBufferList(channelCount: writer.channelCount, frameCapacity: batchCapacity)
        inputTable = memory.take(writer.channelCount, repeating: mapped[0][0])
    }

    /// Frames in the file so far.
    var framesWritten: Int { writer.framesWritten }

    /// Moves every published slot of `ring` into the file; returns how many slots.
    /// A new failure is returned once, for reporting.
    func drain(_ ring: FrameRing) -> (slots: Int, newFailure: MediaError?) {
        var slots = 0
        let before = failure
        while let slot = ring.readableSlot() {
            let frames = ring.header(slot).pointee.frameCount
            var done = 0
            while done < frames {
                let count = min(frames - done, batch.frameCapacity - batchFrames)
                for channel in 0..<ring.channelCount {
                    (batch[0][channel] + batchFrames).update(from: ring.buffers(slot)[channel] + done, count: count)
                }
                batchFrames += count
                done += count
                if batchFrames == batch.frameCapacity { flushBatch() }
            }
            ring.release()
            slots += 1
        }
        flushBatch()
        refreshHeader()
        return (slots, before == nil ? failure : nil)
    }

    /// Nanoseconds between header updates: a crash loses at most this much of a take.
    static let headerInterval: UInt64 = 1_000_000_000
    private var headerUpdated: UInt64 = 0
    private var headerFrames = 0

    /// Rewrites the file's header when a second has passed and frames came since.
    private func refreshHeader() {
        guard failure == nil, writer.framesWritten != headerFrames else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
        guard nanoseconds &- headerUpdated >= Self.headerInterval else { return }
        writer.updateHeader()
        headerUpdated = nanoseconds
        headerFrames = writer.framesWritten
    }

    /// Writes the converter's tail and closes the file. Thread: lock holder.
    func finish() -> MediaError? {
        flushBatch()
        if let resampler, failure == nil {
            while true {
                let made = resampler.flush(output: converted[0], outputCapacity: converted.frameCapacity)
                if made == 0 { break }
                write(converted[0], frameCount: made)
            }
        }
        do throws(AudioFileError) { try writer.close() } catch {
            if failure == nil { failure = .file(error, unit: unitName) }
        }
        return failure
    }

    private func flushBatch() {
        defer { batchFrames = 0 }
        guard batchFrames > 0, failure == nil else { return }
        let source: AudioBuffers
        if batch[0].channelCount == mapped[0].channelCount {
            source = batch[0]
        } else {
            ChannelMapping.map(batch[0], to: mapped[0], frameCount: batchFrames)
            source = mapped[0]
        }
        guard let resampler else {
            write(source, frameCount: batchFrames)
            return
        }
        var used = 0
        while used < batchFrames && failure == nil {
            for channel in 0..<source.channelCount { inputTable[channel] = source[channel] + used }
            let input = AudioBuffers(channelPointers: UnsafePointer(inputTable), channelCount: source.channelCount)
            let step = resampler.process(input: input, inputFrames: batchFrames - used, output: converted[0], outputCapacity: converted.frameCapacity)
            if step.consumed == 0 && step.produced == 0 { break }
            used += step.consumed
            if step.produced > 0 { write(converted[0], frameCount: step.produced) }
        }
    }

    private func write(_ buffers: AudioBuffers, frameCount: Int) {
        guard failure == nil else { return }
        do throws(AudioFileError) { try writer.write(from: buffers, frameCount: frameCount) } catch {
            failure = .file(error, unit: unitName)
        }
    }
}
