import TrellisCore

/// What a file holds: the part of Core Audio's file properties Trellis uses. A value; any thread.
public struct AudioFileInfo: Hashable, Sendable, CustomStringConvertible {
    public var container: AudioFileContainer
    /// How the samples are stored on disk.
    public var encoding: AudioFileEncoding
    public var sampleRate: Double
    public var channelCount: Int
    public var frameCount: Int

    public init(container: AudioFileContainer, encoding: AudioFileEncoding, sampleRate: Double, channelCount: Int, frameCount: Int) {
        self.container = container
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
    }

    /// The stored sample type; for lossy or foreign encodings, float32, the type they decode to.
    public var sampleType: SampleType { encoding.sampleType }

    /// Length in seconds.
    public var duration: Double { sampleRate > 0 ? Double(frameCount) / sampleRate : 0 }

    /// The stream format of the file's samples as stored (interleaved on disk).
    public var format: StreamFormat {
        StreamFormat(sampleRate: sampleRate, channelCount: channelCount, sampleType: sampleType, isInterleaved: channelCount > 1)
    }

    /// E.g. "WAV, int24, 48000 Hz, 2 ch, 96000 frames (2.000 s)".
    public var description: String {
        let rate = sampleRate == sampleRate.rounded() ? String(Int(sampleRate)) : String(sampleRate)
        let millis = Int((duration * 1000).rounded())
        let fraction = String(millis % 1000)
        let seconds = "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
        return "\(container), \(encoding), \(rate) Hz, \(channelCount) ch, \(frameCount) frames (\(seconds) s)"
    }
}
