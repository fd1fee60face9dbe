/// A settings dictionary read once, with every value checked: what `AVAudioFormat`,
/// `AVAudioFile` and `AVAudioRecorder` take.
struct FormatSettings {
    var formatID: AudioFormatID
    var sampleRate: Double
    var channels: AVAudioChannelCount
    /// Bits per sample: the PCM bit depth, or the encoder's depth hint (FLAC).
    var bitDepth: UInt32
    var isFloat: Bool
    var interleaved: Bool
    /// `AVEncoderAudioQualityKey`, 0 (min) to 127 (max).
    var quality: Int

    /// The formats Trellis can write, for messages.
    static let supported = "linear PCM (kAudioFormatLinearPCM: .wav, .aif/.aiff, .caf), FLAC (kAudioFormatFLAC: .flac) and Ogg Vorbis (kAudioFormatVorbis: .ogg)"

    /// Reads `settings`; a missing rate or channel count is `defaults`' (a file's input
    /// format), else 44.1 kHz stereo as Apple's recorder assumes.
    init(_ settings: [String: Any], defaults: (sampleRate: Double, channels: AVAudioChannelCount)? = nil) throws(AVAudioError) {
        let reader = SettingsReader(settings: settings)
        let id = try reader.whole(AVFormatIDKey, in: 0...Int(UInt32.max)).map { AudioFormatID($0) } ?? kAudioFormatLinearPCM
        guard [kAudioFormatLinearPCM, kAudioFormatFLAC, kAudioFormatVorbis].contains(id) else {
            throw AVAudioError(.settings, "\(AVFormatIDKey): \(formatName(id)) has no encoder on Linux; Trellis writes \(Self.supported)")
        }
        formatID = id
        sampleRate = try reader.number(AVSampleRateKey) ?? defaults?.sampleRate ?? 44_100
        guard sampleRate.isFinite, sampleRate >= 1_000, sampleRate <= 768_000 else {
            throw AVAudioError(.settings, "\(AVSampleRateKey): \(sampleRate) Hz: give a rate from 1000 to 768000 Hz")
        }
        channels = AVAudioChannelCount(try reader.whole(AVNumberOfChannelsKey, in: 1...64) ?? Int(defaults?.channels ?? 2))
        isFloat = try reader.flag(AVLinearPCMIsFloatKey) ?? false
        let pcmDepth = try reader.whole(AVLinearPCMBitDepthKey, in: 8...64)
        let hintDepth = try reader.whole(AVEncoderBitDepthHintKey, in: 8...32)
        let depth = pcmDepth ?? hintDepth
        if id == kAudioFormatLinearPCM {
            let bits = depth ?? (isFloat ? 32 : 16)
            let allowed = isFloat ? [32] : [16, 24, 32]
            guard allowed.contains(bits) else {
                throw AVAudioError(.settings, "\(AVLinearPCMBitDepthKey): \(bits) bits \(isFloat ? "float" : "integer") is not a PCM format; give \(allowed.map(String.init).joined(separator: ", "))")
            }
            bitDepth = UInt32(bits)
        } else {
            bitDepth = UInt32(depth ?? (id == kAudioFormatFLAC ? 16 : 0))
            if id == kAudioFormatFLAC, ![16, 24].contains(bitDepth) {
                throw AVAudioError(.settings, "\(AVEncoderBitDepthHintKey): FLAC holds 16 or 24 bits, not \(bitDepth)")
            }
        }
        interleaved = !(try reader.flag(AVLinearPCMIsNonInterleaved) ?? false)
        quality = try reader.whole(AVEncoderAudioQualityKey, in: 0...127) ?? AVAudioQuality.high.rawValue
    }

    /// The sample format a buffer of this format holds: PCM's own, else 32-bit float.
    var commonFormat: AVAudioCommonFormat {
        guard formatID == kAudioFormatLinearPCM else { return .pcmFormatFloat32 }
        switch (isFloat, bitDepth) {
        case (true, 64): return .pcmFormatFloat64
        case (true, _): return .pcmFormatFloat32
        case (false, 16): return .pcmFormatInt16
        case (false, 32): return .pcmFormatInt32
        default: return .otherFormat
        }
    }
}
