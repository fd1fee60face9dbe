/// Core Audio's format identifiers, as four-character codes, and the flags of
/// `AudioStreamBasicDescription` that TrellisAV reads and writes.
public typealias AudioFormatID = UInt32
public typealias AudioFormatFlags = UInt32

@inline(__always)
func fourCharacterCode(_ text: StaticString) -> UInt32 {
    text.withUTF8Buffer { bytes in bytes.reduce(0) { $0 << 8 | UInt32($1) } }
}

public let kAudioFormatLinearPCM: AudioFormatID = fourCharacterCode("lpcm")
public let kAudioFormatFLAC: AudioFormatID = fourCharacterCode("flac")
/// Not one of Apple's: Ogg Vorbis, which Trellis writes and Apple's platforms do not.
public let kAudioFormatVorbis: AudioFormatID = fourCharacterCode("vorb")
public let kAudioFormatMPEG4AAC: AudioFormatID = fourCharacterCode("aac ")
public let kAudioFormatAppleLossless: AudioFormatID = fourCharacterCode("alac")
public let kAudioFormatOpus: AudioFormatID = fourCharacterCode("opus")
public let kAudioFormatMPEGLayer3: AudioFormatID = fourCharacterCode(".mp3")
public let kAudioFormatAppleIMA4: AudioFormatID = fourCharacterCode("ima4")
public let kAudioFormatULaw: AudioFormatID = fourCharacterCode("ulaw")
public let kAudioFormatALaw: AudioFormatID = fourCharacterCode("alaw")

public let kAudioFormatFlagIsFloat: AudioFormatFlags = 1 << 0
public let kAudioFormatFlagIsBigEndian: AudioFormatFlags = 1 << 1
public let kAudioFormatFlagIsSignedInteger: AudioFormatFlags = 1 << 2
public let kAudioFormatFlagIsPacked: AudioFormatFlags = 1 << 3
public let kAudioFormatFlagIsNonInterleaved: AudioFormatFlags = 1 << 5
public let kAudioFormatFlagsNativeFloatPacked: AudioFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked

/// The name of a format identifier, for messages: `'aac '`.
func formatName(_ id: AudioFormatID) -> String {
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: id >> (24 - 8 * $0)) }
    guard bytes.allSatisfy({ (32..<127).contains($0) }) else { return String(id) }
    return "'" + String(decoding: bytes, as: UTF8.self) + "'"
}

/// Core Audio's description of a linear PCM stream.
public struct AudioStreamBasicDescription: Hashable, Sendable {
    public var mSampleRate: Double
    public var mFormatID: AudioFormatID
    public var mFormatFlags: AudioFormatFlags
    public var mBytesPerPacket: UInt32
    public var mFramesPerPacket: UInt32
    public var mBytesPerFrame: UInt32
    public var mChannelsPerFrame: UInt32
    public var mBitsPerChannel: UInt32
    public var mReserved: UInt32

    public init(
        mSampleRate: Double = 0, mFormatID: AudioFormatID = 0, mFormatFlags: AudioFormatFlags = 0, mBytesPerPacket: UInt32 = 0,
        mFramesPerPacket: UInt32 = 0, mBytesPerFrame: UInt32 = 0, mChannelsPerFrame: UInt32 = 0, mBitsPerChannel: UInt32 = 0,
        mReserved: UInt32 = 0
    ) {
        self.mSampleRate = mSampleRate
        self.mFormatID = mFormatID
        self.mFormatFlags = mFormatFlags
        self.mBytesPerPacket = mBytesPerPacket
        self.mFramesPerPacket = mFramesPerPacket
        self.mBytesPerFrame = mBytesPerFrame
        self.mChannelsPerFrame = mChannelsPerFrame
        self.mBitsPerChannel = mBitsPerChannel
        self.mReserved = mReserved
    }
}
