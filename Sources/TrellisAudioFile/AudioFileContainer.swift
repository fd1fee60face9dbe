import CSndfile
import TrellisCore

/// A file container Trellis reads and writes: the `AudioFileTypeID` analog. A value; any thread.
public enum AudioFileContainer: String, Sendable, CaseIterable, CustomStringConvertible {
    case wav
    case aiff
    case caf
    case flac
    /// Ogg Vorbis. Vorbis is lossy: it is written from float32 and decodes to float32,
    /// but what comes back is close to, not equal to, what went in.
    case ogg

    /// The container a path's extension names (case-insensitive), or nil for an unknown one.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "wav", "wave": self = .wav
        case "aif", "aiff", "aifc": self = .aiff
        case "caf": self = .caf
        case "flac": self = .flac
        case "ogg", "oga": self = .ogg
        default: return nil
        }
    }

    /// The container a file path's extension names, or nil for none or an unknown one.
    public init?(path: String) {
        guard let ext = Self.pathExtension(of: path) else { return nil }
        self.init(pathExtension: ext)
    }

    /// The text after the last dot of the last path component, if any.
    static func pathExtension(of path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return String(name[name.index(after: dot)...])
    }

    /// The sample types this container can hold, in the order of `SampleType.allCases`.
    /// FLAC is integer-only and, in libsndfile, at most 24 bits; Ogg Vorbis takes float32.
    public var supportedSampleTypes: [SampleType] {
        switch self {
        case .wav, .aiff, .caf: [.float32, .int16, .int24, .int32]
        case .flac: [.int16, .int24]
        case .ogg: [.float32]
        }
    }

    /// What a file of this container holds when nobody asks for a sample type: float32
    /// where it can, 24-bit integers in FLAC; Ogg Vorbis encodes from float32.
    public var defaultSampleType: SampleType {
        self == .flac ? .int24 : .float32
    }

    public func canHold(_ sampleType: SampleType) -> Bool {
        supportedSampleTypes.contains(sampleType)
    }

    /// libsndfile's major format (`SF_FORMAT_WAV` ...).
    public var sndfileMajorFormat: Int32 {
        switch self {
        case .wav: Int32(SF_FORMAT_WAV)
        case .aiff: Int32(SF_FORMAT_AIFF)
        case .caf: Int32(SF_FORMAT_CAF)
        case .flac: Int32(SF_FORMAT_FLAC)
        case .ogg: Int32(SF_FORMAT_OGG)
        }
    }

    /// The full libsndfile format (major | subtype) for writing `sampleType`, or nil when
    /// this container cannot hold it.
    public func sndfileFormat(for sampleType: SampleType) -> Int32? {
        guard canHold(sampleType) else { return nil }
        if self == .ogg { return sndfileMajorFormat | Int32(SF_FORMAT_VORBIS) }
        let subtype: Int32 = switch sampleType {
        case .float32: Int32(SF_FORMAT_FLOAT)
        case .int16: Int32(SF_FORMAT_PCM_16)
        case .int24: Int32(SF_FORMAT_PCM_24)
        case .int32: Int32(SF_FORMAT_PCM_32)
        }
        return sndfileMajorFormat | subtype
    }

    /// The container of a libsndfile major format; WAVEX (WAVE_FORMAT_EXTENSIBLE) is WAV.
    init?(sndfileMajorFormat major: Int32) {
        switch Int(major) {
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX: self = .wav
        case SF_FORMAT_AIFF: self = .aiff
        case SF_FORMAT_CAF: self = .caf
        case SF_FORMAT_FLAC: self = .flac
        case SF_FORMAT_OGG: self = .ogg
        default: return nil
        }
    }

    /// The name people use: "WAV", "AIFF", "CAF", "FLAC", "Ogg Vorbis".
    public var description: String {
        switch self {
        case .wav: "WAV"
        case .aiff: "AIFF"
        case .caf: "CAF"
        case .flac: "FLAC"
        case .ogg: "Ogg Vorbis"
        }
    }
}
