import Foundation

/// The keys of AVFAudio's settings dictionaries (`AVAudioFormat.settings`,
/// `AVAudioFile(forWriting:settings:)`, `AVAudioRecorder(url:settings:)`), spelled as
/// Apple spells their values.
public let AVFormatIDKey = "AVFormatIDKey"
public let AVSampleRateKey = "AVSampleRateKey"
public let AVNumberOfChannelsKey = "AVNumberOfChannelsKey"
public let AVLinearPCMBitDepthKey = "AVLinearPCMBitDepthKey"
public let AVLinearPCMIsFloatKey = "AVLinearPCMIsFloatKey"
public let AVLinearPCMIsBigEndianKey = "AVLinearPCMIsBigEndianKey"
public let AVLinearPCMIsNonInterleaved = "AVLinearPCMIsNonInterleaved"
public let AVEncoderAudioQualityKey = "AVEncoderAudioQualityKey"
public let AVEncoderBitRateKey = "AVEncoderBitRateKey"
public let AVEncoderBitDepthHintKey = "AVEncoderBitDepthHintKey"
public let AVSampleRateConverterAudioQualityKey = "AVSampleRateConverterAudioQualityKey"
public let AVChannelLayoutKey = "AVChannelLayoutKey"

/// Encoder and converter quality, as AVFAudio defines it.
public enum AVAudioQuality: Int, Sendable {
    case min = 0
    case low = 0x20
    case medium = 0x40
    case high = 0x60
    case max = 0x7F
}

/// A settings dictionary read with the types people put in it: Swift numbers, Bool,
/// `NSNumber`, and AVFAudio's enums by raw value.
struct SettingsReader {
    let settings: [String: Any]

    /// The number under `key`, nil when absent; an error naming the key when it is not a number.
    func number(_ key: String) throws(AVAudioError) -> Double? {
        guard let value = settings[key] else { return nil }
        switch value {
        case let number as Double: return number
        case let number as Float: return Double(number)
        case let number as Int: return Double(number)
        case let number as UInt32: return Double(number)
        case let number as Int32: return Double(number)
        case let number as Int64: return Double(number)
        case let number as UInt: return Double(number)
        case let flag as Bool: return flag ? 1 : 0
        case let quality as AVAudioQuality: return Double(quality.rawValue)
        case let number as NSNumber: return number.doubleValue
        default: throw AVAudioError(.settings, "\(key): \(value) is not a number")
        }
    }

    func flag(_ key: String) throws(AVAudioError) -> Bool? {
        try number(key).map { $0 != 0 }
    }

    /// A whole number under `key` within `range`.
    func whole(_ key: String, in range: ClosedRange<Int>) throws(AVAudioError) -> Int? {
        guard let value = try number(key) else { return nil }
        guard value == value.rounded(), value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw AVAudioError(.settings, "\(key): \(value) is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(value)
    }
}
