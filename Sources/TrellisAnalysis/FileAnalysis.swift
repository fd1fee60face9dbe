import TrellisAudioFile
import TrellisCore

/// What `trellis analyze` measures of a file, read once from start to end: loudness by
/// EBU R128, each channel's levels and clipping, and the spectrum of the channels mixed.
public struct FileAnalysis: Sendable {
    public struct Channel: Sendable {
        public var statistics: ChannelStatistics
        /// dBTP.
        public var truePeak: Double
    }

    public var path: String
    public var info: AudioFileInfo
    public var loudness: LoudnessReading
    public var channels: [Channel]
    /// Hz; nil for silence.
    public var spectralCentroid: Double?
    public var spectralRollOff: Double?
    /// What a picture draws, when one was asked for.
    public var picture: PictureData?

    /// The sample peak of every channel, in dBFS.
    public var samplePeak: Double { channels.map(\.statistics.peakDecibels).max() ?? -.infinity }

    /// Reads `path` to its end, gathering what `picture` draws when given. Thread: control
    /// (it allocates and does I/O).
    public static func analyze(path: String, picture: AnalysisPicture? = nil) throws(AnalysisError) -> FileAnalysis {
        let reader: AudioFileReader
        do { reader = try AudioFileReader(path: path) } catch { throw .file(error) }
        defer { reader.close() }
        let info = reader.info
        let channelCount = info.channelCount
        let meter = try LoudnessMeter(channelCount: channelCount, sampleRate: info.sampleRate)
        var statistics = [ChannelStatistics](repeating: ChannelStatistics(), count: channelCount)
        var spectrum = SpectrumStatistics(sampleRate: info.sampleRate)
        let chunkFrames = max(1, Int((info.sampleRate / 10).rounded()))
        let chunk = AudioBufferList(channelCount: channelCount, frameCapacity: chunkFrames)
        var mix = [Float](repeating: 0, count: chunkFrames)
        var drawn = picture.map {
            PictureData(columns: $0.columns, bands: $0.bands, channelCount: channelCount, frameCount: info.frameCount, sampleRate: info.sampleRate)
        }
        var frames = 0
        while true {
            let got: Int
            do { got = try reader.read(into: chunk[0], frameCount: chunkFrames) } catch { throw .file(error) }
            guard got > 0 else { break }
            frames += got
            let buffers = chunk[0]
            meter.add(buffers, frameCount: got)
            for channel in 0..<channelCount { statistics[channel].add(buffers[channel], count: got) }
            for frame in 0..<got {
                var sum: Float = 0
                for channel in 0..<channelCount { sum += buffers[channel][frame] }
                mix[frame] = sum / Float(channelCount)
            }
            mix.withUnsafeBufferPointer { mix in
                spectrum.add(mix.baseAddress!, count: got)
                drawn?.add((0..<channelCount).map { UnsafePointer(buffers[$0]) }, mix: mix.baseAddress!, count: got)
            }
            if got == chunkFrames { drawn?.addShortTerm(meter.shortTerm) }
            if got < chunkFrames { break }
        }
        guard frames > 0 else { throw .empty(path: path) }
        spectrum.finish()
        drawn?.finish()
        return FileAnalysis(
            path: path, info: info,
            loudness: LoudnessReading(meter),
            channels: (0..<channelCount).map { Channel(statistics: statistics[$0], truePeak: meter.truePeak(channel: $0)) },
            spectralCentroid: spectrum.centroid, spectralRollOff: spectrum.rollOff, picture: drawn)
    }
}
