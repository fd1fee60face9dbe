import Foundation
import TrellisCore

/// A stream's format: rate, channels, sample format and interleaving, as AVFAudio's
/// `AVAudioFormat`. The standard format is 32-bit float, deinterleaved: what the graph
/// runs on. Formats are values in all but name: two with the same fields are equal.
public final class AVAudioFormat: Hashable, @unchecked Sendable, CustomStringConvertible {
    public let sampleRate: Double
    public let channelCount: AVAudioChannelCount
    public let commonFormat: AVAudioCommonFormat
    public let isInterleaved: Bool
    /// Where the description came from when it was not one of the common formats (a file's
    /// FLAC or Vorbis format).
    private let formatID: AudioFormatID
    private let bitsPerChannel: UInt32
    private let description_: UnsafeMutablePointer<AudioStreamBasicDescription>
    private let memory = Arena(firstBlock: MemoryLayout<AudioStreamBasicDescription>.stride)

    /// 32-bit float, deinterleaved; nil for a rate or channel count Trellis cannot run
    /// (a rate outside 1 kHz – 768 kHz, no channels or more than 64).
    public convenience init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: channels, interleaved: false)
    }

    public convenience init?(commonFormat format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount, interleaved: Bool) {
        guard format != .otherFormat, Self.isValid(sampleRate: sampleRate, channels: channels) else { return nil }
        self.init(sampleRate: sampleRate, channels: channels, common: format, interleaved: interleaved, formatID: kAudioFormatLinearPCM,
                  bits: UInt32(format.bytesPerSample * 8))
    }

    /// A format from a settings dictionary (`AVFormatIDKey`, `AVSampleRateKey`,
    /// `AVNumberOfChannelsKey`, and for linear PCM `AVLinearPCMBitDepthKey`,
    /// `AVLinearPCMIsFloatKey`, `AVLinearPCMIsNonInterleaved`); nil when it names no
    /// format Trellis has.
    public convenience init?(settings: [String: Any]) {
        guard let parsed = try? FormatSettings(settings), Self.isValid(sampleRate: parsed.sampleRate, channels: parsed.channels) else {
            return nil
        }
        self.init(sampleRate: parsed.sampleRate, channels: parsed.channels, common: parsed.commonFormat, interleaved: parsed.interleaved,
                  formatID: parsed.formatID, bits: parsed.bitDepth)
    }

    public convenience init?(streamDescription asbd: UnsafePointer<AudioStreamBasicDescription>) {
        let d = asbd.pointee
        guard d.mFormatID == kAudioFormatLinearPCM, Self.isValid(sampleRate: d.mSampleRate, channels: d.mChannelsPerFrame) else { return nil }
        let float = d.mFormatFlags & kAudioFormatFlagIsFloat != 0
        let common: AVAudioCommonFormat = switch (float, d.mBitsPerChannel) {
        case (true, 32): .pcmFormatFloat32
        case (true, 64): .pcmFormatFloat64
        case (false, 16): .pcmFormatInt16
        case (false, 32): .pcmFormatInt32
        default: .otherFormat
        }
        guard common != .otherFormat else { return nil }
        self.init(sampleRate: d.mSampleRate, channels: d.mChannelsPerFrame, common: common,
                  interleaved: d.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0, formatID: kAudioFormatLinearPCM, bits: d.mBitsPerChannel)
    }

    init(sampleRate: Double, channels: AVAudioChannelCount, common: AVAudioCommonFormat, interleaved: Bool, formatID: AudioFormatID, bits: UInt32) {
        self.sampleRate = sampleRate
        channelCount = channels
        commonFormat = common
        isInterleaved = interleaved
        self.formatID = formatID
        bitsPerChannel = bits
        description_ = memory.place(Self.streamDescription(
            sampleRate: sampleRate, channels: channels, common: common, interleaved: interleaved, formatID: formatID, bits: bits))
    }

    static func isValid(sampleRate: Double, channels: AVAudioChannelCount) -> Bool {
        sampleRate.isFinite && sampleRate >= 1_000 && sampleRate <= 768_000 && (1...64).contains(channels)
    }

    /// 32-bit float, deinterleaved.
    public var isStandard: Bool { commonFormat == .pcmFormatFloat32 && !isInterleaved }

    /// The format as Core Audio describes it. The pointer lives as long as the format.
    public var streamDescription: UnsafePointer<AudioStreamBasicDescription> { UnsafePointer(description_) }

    /// The format as a settings dictionary, which `init(settings:)` reads back.
    public var settings: [String: Any] {
        var settings: [String: Any] = [
            AVFormatIDKey: formatID, AVSampleRateKey: sampleRate, AVNumberOfChannelsKey: Int(channelCount),
        ]
        if formatID == kAudioFormatLinearPCM {
            settings[AVLinearPCMBitDepthKey] = Int(bitsPerChannel)
            settings[AVLinearPCMIsFloatKey] = commonFormat == .pcmFormatFloat32 || commonFormat == .pcmFormatFloat64
            settings[AVLinearPCMIsBigEndianKey] = false
            settings[AVLinearPCMIsNonInterleaved] = !isInterleaved
        } else if bitsPerChannel > 0 {
            settings[AVEncoderBitDepthHintKey] = Int(bitsPerChannel)
        }
        return settings
    }

    /// The same format at another rate or width (the graph's formats are standard).
    func with(sampleRate: Double? = nil, channels: AVAudioChannelCount? = nil) -> AVAudioFormat {
        AVAudioFormat(sampleRate: sampleRate ?? self.sampleRate, channels: channels ?? channelCount, common: commonFormat,
                      interleaved: isInterleaved, formatID: formatID, bits: bitsPerChannel)
    }

    private static func streamDescription(
        sampleRate: Double, channels: AVAudioChannelCount, common: AVAudioCommonFormat, interleaved: Bool, formatID: AudioFormatID, bits: UInt32
    ) -> AudioStreamBasicDescription {
        guard formatID == kAudioFormatLinearPCM else {
            return AudioStreamBasicDescription(mSampleRate: sampleRate, mFormatID: formatID, mChannelsPerFrame: channels, mBitsPerChannel: bits)
        }
        let bytes = bits / 8
        var flags = kAudioFormatFlagIsPacked | (common == .pcmFormatFloat32 || common == .pcmFormatFloat64 ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger)
        if !interleaved { flags |= kAudioFormatFlagIsNonInterleaved }
        let frameBytes = interleaved ? bytes * channels : bytes
        return AudioStreamBasicDescription(
            mSampleRate: sampleRate, mFormatID: formatID, mFormatFlags: flags, mBytesPerPacket: frameBytes, mFramesPerPacket: 1,
            mBytesPerFrame: frameBytes, mChannelsPerFrame: channels, mBitsPerChannel: bytes * 8)
    }

    public static func == (a: AVAudioFormat, b: AVAudioFormat) -> Bool {
        a.sampleRate == b.sampleRate && a.channelCount == b.channelCount && a.commonFormat == b.commonFormat
            && a.isInterleaved == b.isInterleaved && a.formatID == b.formatID && a.bitsPerChannel == b.bitsPerChannel
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sampleRate)
        hasher.combine(channelCount)
        hasher.combine(commonFormat)
        hasher.combine(isInterleaved)
        hasher.combine(formatID)
    }

    public var description: String {
        let layout = isInterleaved ? "interleaved" : "deinterleaved"
        let sample = formatID == kAudioFormatLinearPCM ? commonFormat.description : formatName(formatID)
        return "<AVAudioFormat \(channelCount) ch, \(Int(sampleRate)) Hz, \(sample), \(layout)>"
    }
}
