/// AVFAudio's scalar types, with Apple's widths, so ported code keeps its arithmetic.
public typealias AVAudioFrameCount = UInt32
public typealias AVAudioFramePosition = Int64
public typealias AVAudioPacketCount = UInt32
public typealias AVAudioChannelCount = UInt32
public typealias AVAudioNodeBus = Int

/// The sample formats an `AVAudioFormat` can name, as in AVFAudio.
public enum AVAudioCommonFormat: UInt, Sendable, CustomStringConvertible {
    case otherFormat = 0
    case pcmFormatFloat32 = 1
    case pcmFormatFloat64 = 2
    case pcmFormatInt16 = 3
    case pcmFormatInt32 = 4

    /// Bytes of one sample.
    var bytesPerSample: Int {
        switch self {
        case .pcmFormatFloat32, .pcmFormatInt32: 4
        case .pcmFormatFloat64: 8
        case .pcmFormatInt16: 2
        case .otherFormat: 0
        }
    }

    public var description: String {
        switch self {
        case .otherFormat: "other"
        case .pcmFormatFloat32: "Float32"
        case .pcmFormatFloat64: "Float64"
        case .pcmFormatInt16: "Int16"
        case .pcmFormatInt32: "Int32"
        }
    }
}
