/// How samples are stored: the part of Core Audio's `AudioStreamBasicDescription`
/// that Trellis uses.
public enum SampleType: String, Sendable, CaseIterable, CustomStringConvertible {
    case float32
    case int16
    case int24
    case int32

    public var bitsPerSample: Int {
        switch self {
        case .float32, .int32: 32
        case .int16: 16
        case .int24: 24
        }
    }

    public var bytesPerSample: Int { bitsPerSample / 8 }

    public var isInteger: Bool { self != .float32 }

    public var description: String { rawValue }
}

/// Describes a stream or bus: the `AudioStreamBasicDescription` analog.
///
/// Inside a graph every bus is canonical: non-interleaved `Float32`. Other sample types
/// and interleaving exist at the edges (files, JACK, the converter).
public struct StreamFormat: Hashable, Sendable, CustomStringConvertible {
    public var sampleRate: Double
    public var channelCount: Int
    public var sampleType: SampleType
    public var isInterleaved: Bool

    public init(sampleRate: Double, channelCount: Int, sampleType: SampleType = .float32, isInterleaved: Bool = false) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.sampleType = sampleType
        self.isInterleaved = isInterleaved
    }

    /// Non-interleaved 32-bit float: the graph's internal format.
    public static func canonical(sampleRate: Double, channelCount: Int) -> StreamFormat {
        StreamFormat(sampleRate: sampleRate, channelCount: channelCount)
    }

    public var isCanonical: Bool { sampleType == .float32 && !isInterleaved }

    /// The most channels a bus may carry; more is almost surely a typo.
    public static let maximumChannelCount = 64
    public static let sampleRateRange: ClosedRange<Double> = 1_000...768_000

    /// Checks that the format describes something that can exist.
    public func validate() throws(StreamFormatError) {
        guard sampleRate.isFinite, Self.sampleRateRange.contains(sampleRate) else {
            throw .sampleRateOutOfRange(sampleRate)
        }
        guard (1...Self.maximumChannelCount).contains(channelCount) else {
            throw .channelCountOutOfRange(channelCount)
        }
    }

    public var description: String {
        let rate = sampleRate == sampleRate.rounded() ? String(Int(sampleRate)) : String(sampleRate)
        // Inside a graph every bus is non-interleaved; only the exception is worth saying.
        let layout = channelCount > 1 && isInterleaved ? " interleaved" : ""
        return "\(rate) Hz, \(channelCount) ch, \(sampleType)\(layout)"
    }
}

public enum StreamFormatError: Error, Equatable, CustomStringConvertible {
    case sampleRateOutOfRange(Double)
    case channelCountOutOfRange(Int)

    public var description: String {
        switch self {
        case .sampleRateOutOfRange(let rate):
            return "sample rate \(rate) Hz is outside \(Int(StreamFormat.sampleRateRange.lowerBound))...\(Int(StreamFormat.sampleRateRange.upperBound)) Hz"
        case .channelCountOutOfRange(let count):
            return "channel count \(count) is outside 1...\(StreamFormat.maximumChannelCount)"
        }
    }
}
