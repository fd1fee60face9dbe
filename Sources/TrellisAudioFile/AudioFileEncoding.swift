import CSndfile
import TrellisCore

/// How a file stores its samples, as read from the file: the exact truth, where
/// `AudioFileInfo.sampleType` gives the nearest Trellis sample type. A value; any thread.
public enum AudioFileEncoding: Hashable, Sendable, CustomStringConvertible {
    /// Linear PCM in one of Trellis' sample types; reads back exactly.
    case pcm(SampleType)
    /// Vorbis: lossy, written from float32 and decoded to float32.
    case vorbis
    /// Anything else libsndfile decodes (8-bit, double, µ-law, Opus...), named by libsndfile.
    /// It reads as float through libsndfile's own conversion.
    case other(String)

    /// The sample type the samples decode to without loss beyond the encoding's own.
    public var sampleType: SampleType {
        switch self {
        case .pcm(let type): type
        case .vorbis, .other: .float32
        }
    }

    public var isLossy: Bool {
        if case .vorbis = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .pcm(let type): "\(type)"
        case .vorbis: "Vorbis (lossy, decodes to float32)"
        case .other(let name): "\(name) (decodes to float32)"
        }
    }

    init(sndfileSubtype subtype: Int32) {
        switch Int(subtype) {
        case SF_FORMAT_PCM_16: self = .pcm(.int16)
        case SF_FORMAT_PCM_24: self = .pcm(.int24)
        case SF_FORMAT_PCM_32: self = .pcm(.int32)
        case SF_FORMAT_FLOAT: self = .pcm(.float32)
        case SF_FORMAT_VORBIS: self = .vorbis
        default: self = .other(Self.sndfileName(ofSubtype: subtype))
        }
    }

    /// libsndfile's name for a subtype, e.g. "Unsigned 8 bit PCM".
    static func sndfileName(ofSubtype subtype: Int32) -> String {
        var formatInfo = SF_FORMAT_INFO()
        formatInfo.format = subtype
        let status = sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &formatInfo, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
        guard status == 0, let name = formatInfo.name else {
            return "libsndfile subtype 0x" + String(subtype, radix: 16)
        }
        return String(cString: name)
    }
}
