import TrellisAudioFile
import TrellisCore
import TrellisUnits

/// A whole file as consecutive input channels, converted to the graph's rate with
/// libsoxr (high quality unless asked otherwise) as it is read: what sox's `rate` does at a chain's edge.
/// `frameCount` is the file's length at the graph's rate. Thread: the offline render's
/// reading thread (libsoxr allocates as it works; never the audio thread).
public final class ResampledFileInput: OfflineInput {
    public let reader: AudioFileReader
    public let rate: Double
    /// The file's length at `rate`.
    public let frameCount: Int
    private let converter: SampleRateConverter
    private let chunk: AudioBufferList
    private let converted: AudioBufferList
    /// `chunk`'s channels from `chunkStart` on, for the converter.
    private let unread: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let memory = Arena(firstBlock: 1024)
    private var chunkStart = 0, chunkCount = 0
    private var convertedStart = 0, convertedCount = 0
    private var produced = 0
    private var inputEnded = false

    public init(reader: AudioFileReader, rate: Double, quality: SampleRateConverter.Quality = .high) throws(OfflineRenderError) {
        self.reader = reader
        self.rate = rate
        let info = reader.info
        frameCount = Int((Double(info.frameCount) * rate / info.sampleRate).rounded())
        do {
            converter = try SampleRateConverter(inputRate: info.sampleRate, outputRate: rate, channelCount: info.channelCount, quality: quality)
        } catch {
            throw .prepare("\(reader.path): cannot convert \(Int(info.sampleRate)) Hz to \(Int(rate)) Hz: \(error)")
        }
        chunk = AudioBufferList(channelCount: info.channelCount, frameCapacity: 8192)
        converted = AudioBufferList(channelCount: info.channelCount, frameCapacity: 8192 * Int((rate / info.sampleRate).rounded(.up)) + 64)
        unread = memory.take(info.channelCount)
        for channel in 0..<info.channelCount { (unread + channel).initialize(to: chunk[0][channel]) }
    }

    public var channelCount: Int { reader.info.channelCount }
    public var writesEveryFrame: Bool { true }

    public func fill(_ buffers: AudioBuffers, frameCount wanted: Int) throws(AudioFileError) {
        var done = 0
        while done < wanted {
            if convertedCount > 0 {
                let count = min(convertedCount, wanted - done, frameCount - produced)
                guard count > 0 else { break }
                for channel in 0..<min(buffers.channelCount, channelCount) {
                    (buffers[channel] + done).update(from: converted[0][channel] + convertedStart, count: count)
                }
                convertedStart += count
                convertedCount -= count
                produced += count
                done += count
                continue
            }
            guard produced < frameCount else { break }
            try convertMore()
            if convertedCount == 0 && inputEnded { break }
        }
        // Past the end (or a channel the graph has beyond the file's): silence.
        for channel in 0..<buffers.channelCount {
            let from = channel < channelCount ? done : 0
            (buffers[channel] + from).update(repeating: 0, count: wanted - from)
        }
    }

    /// Refills `converted` from the next input (or the converter's tail at the end).
    private func convertMore() throws(AudioFileError) {
        convertedStart = 0
        if chunkCount == 0 && !inputEnded {
            chunkStart = 0
            chunkCount = try reader.read(into: chunk[0], frameCount: chunk.frameCapacity)
            if chunkCount == 0 { inputEnded = true }
        }
        if inputEnded {
            convertedCount = converter.flush(output: converted[0], outputCapacity: converted.frameCapacity)
            return
        }
        for channel in 0..<channelCount { unread[channel] = chunk[0][channel] + chunkStart }
        let input = AudioBuffers(channelPointers: UnsafePointer(unread), channelCount: channelCount)
        let (consumed, made) = converter.process(input: input, inputFrames: chunkCount, output: converted[0], outputCapacity: converted.frameCapacity)
        chunkStart += consumed
        chunkCount -= consumed
        convertedCount = made
        if consumed == 0 && made == 0 && chunkCount > 0 { throw .readFailed(path: reader.path, reason: "the rate converter stopped") }
    }
}
