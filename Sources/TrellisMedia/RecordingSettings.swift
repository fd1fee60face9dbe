import TrellisAudioFile
import TrellisCore

/// How a recording is encoded: AVAudioRecorder's `AVFormatIDKey` and its PCM keys.
public enum RecordingEncoding: Sendable, Equatable, CustomStringConvertible {
    /// Linear PCM in a sample type (FLAC codes it losslessly).
    case pcm(SampleType)
    /// Ogg Vorbis, lossy, from float.
    case vorbis

    public var description: String {
        switch self {
        case .pcm(let type): "\(type) linear PCM"
        case .vorbis: "Vorbis"
        }
    }
}

/// What a recorder writes: the container, the encoding, the file's rate and width.
/// Nil rate or channel count means the recorded bus's. A value; any thread.
public struct RecordingSettings: Sendable, Equatable {
    /// Nil: the one the path's extension names.
    public var container: AudioFileContainer?
    public var encoding: RecordingEncoding
    public var sampleRate: Double?
    public var channelCount: Int?
    /// TPDF dither when float becomes 16- or 24-bit PCM (docs/files.md).
    public var dither: Bool
    /// Ogg Vorbis quality, 0 (smallest) ... 1 (best); nil for libsndfile's default.
    public var quality: Double?

    public init(container: AudioFileContainer? = nil, encoding: RecordingEncoding = .pcm(.float32), sampleRate: Double? = nil, channelCount: Int? = nil, dither: Bool = true) {
        self.container = container
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.dither = dither
    }

    /// A container's own best encoding: float32 where it holds float (WAV, AIFF, CAF),
    /// 24-bit for FLAC, Vorbis for Ogg. What a session's recorder writes.
    public static func fitting(_ container: AudioFileContainer?) -> RecordingSettings {
        switch container {
        case .flac?: RecordingSettings(container: container, encoding: .pcm(.int24))
        case .ogg?: RecordingSettings(container: container, encoding: .vorbis)
        default: RecordingSettings(container: container)
        }
    }

    /// A session recorder's settings: the container's own encoding unless `sampleType`
    /// names one, dithered unless `dither` is false.
    public static func session(_ container: AudioFileContainer?, sampleType: SampleType?, dither: Bool, quality: Double? = nil) -> RecordingSettings {
        var settings = fitting(container)
        if let sampleType { settings.encoding = .pcm(sampleType) }
        settings.dither = dither
        settings.quality = quality
        return settings
    }

    /// The encodings a container can hold, in order.
    public static func encodings(for container: AudioFileContainer) -> [RecordingEncoding] {
        container == .ogg ? [.vorbis] : container.supportedSampleTypes.map { .pcm($0) }
    }

    /// The sample type handed to the file writer, after checking that `container` can
    /// hold the encoding.
    func sampleType(in container: AudioFileContainer, path: String, unit: String) throws(MediaError) -> SampleType {
        let held = Self.encodings(for: container)
        guard held.contains(encoding) else {
            let list = held.map(\.description).joined(separator: ", ")
            throw .invalidSettings("'\(path)': \(container) cannot hold \(encoding); it holds \(list)", unit: unit)
        }
        switch encoding {
        case .pcm(let type): return type
        case .vorbis: return .float32
        }
    }
}
