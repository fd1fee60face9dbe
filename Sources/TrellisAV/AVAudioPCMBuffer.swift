import TrellisCore

/// A buffer's format, as AVFAudio's abstract `AVAudioBuffer`.
public class AVAudioBuffer: @unchecked Sendable {
    public let format: AVAudioFormat

    init(format: AVAudioFormat) { self.format = format }
}

/// Linear PCM frames in a buffer that owns its memory, as AVFAudio's `AVAudioPCMBuffer`:
/// one pointer per channel deinterleaved, one pointer with `stride` channels interleaved;
/// exactly one of the three channel-data properties is non-nil, the one of the format's
/// sample type. Thread: one at a time.
public final class AVAudioPCMBuffer: AVAudioBuffer, @unchecked Sendable {
    public let frameCapacity: AVAudioFrameCount
    /// Frames that hold audio, up to `frameCapacity`.
    public var frameLength: AVAudioFrameCount = 0 {
        willSet { precondition(newValue <= frameCapacity, "AVAudioPCMBuffer: frameLength \(newValue) exceeds frameCapacity \(frameCapacity)") }
    }
    /// Samples from one frame to the next in a channel's memory.
    public let stride: Int

    private let storage: UnsafeMutableRawPointer
    private let floats: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    private let shorts: UnsafeMutablePointer<UnsafeMutablePointer<Int16>>?
    private let ints: UnsafeMutablePointer<UnsafeMutablePointer<Int32>>?
    private let doubles: UnsafeMutablePointer<UnsafeMutablePointer<Double>>?
    /// The samples and the channel table, for as long as the buffer lives.
    private let memory: Arena

    /// A zeroed buffer; nil for a format that is not linear PCM of a common sample type.
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) {
        let bytes = format.commonFormat.bytesPerSample
        guard bytes > 0 else { return nil }
        let channels = Int(format.channelCount), capacity = Int(frameCapacity)
        self.frameCapacity = frameCapacity
        stride = format.isInterleaved ? channels : 1
        let size = max(1, channels * capacity * bytes)
        let pointers = format.isInterleaved ? 1 : channels
        // One block for both pieces, each starting on a cache line.
        let lines = { (bytes: Int) in (bytes + Arena.alignment - 1) / Arena.alignment * Arena.alignment }
        let memory = Arena(firstBlock: lines(size) + lines(pointers * MemoryLayout<UnsafeMutableRawPointer>.stride))
        self.memory = memory
        let storage = memory.takeBytes(size, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        self.storage = storage
        func table<T>(_: T.Type) -> UnsafeMutablePointer<UnsafeMutablePointer<T>> {
            let table = memory.take(pointers, of: UnsafeMutablePointer<T>.self)
            let base = storage.bindMemory(to: T.self, capacity: channels * capacity)
            for channel in 0..<pointers { (table + channel).initialize(to: base + channel * capacity) }
            return table
        }
        floats = format.commonFormat == .pcmFormatFloat32 ? table(Float.self) : nil
        shorts = format.commonFormat == .pcmFormatInt16 ? table(Int16.self) : nil
        ints = format.commonFormat == .pcmFormatInt32 ? table(Int32.self) : nil
        doubles = format.commonFormat == .pcmFormatFloat64 ? table(Double.self) : nil
        super.init(format: format)
    }

    public var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? { floats.map { UnsafePointer($0) } }
    public var int16ChannelData: UnsafePointer<UnsafeMutablePointer<Int16>>? { shorts.map { UnsafePointer($0) } }
    public var int32ChannelData: UnsafePointer<UnsafeMutablePointer<Int32>>? { ints.map { UnsafePointer($0) } }
    /// Not in AVFAudio (whose Float64 buffers are reached through `audioBufferList`).
    public var float64ChannelData: UnsafePointer<UnsafeMutablePointer<Double>>? { doubles.map { UnsafePointer($0) } }

    /// Channel `channel`'s sample at `frame` as a float in −1...1 (integers scaled by
    /// 2^(bits−1)). Thread: the buffer's.
    func sample(channel: Int, frame: Int) -> Float {
        let (pointer, index) = format.isInterleaved ? (0, frame * stride + channel) : (channel, frame)
        if let floats { return floats[pointer][index] }
        if let shorts { return Float(shorts[pointer][index]) / 32_768 }
        if let ints { return Float(Double(ints[pointer][index]) / 2_147_483_648) }
        return Float(doubles.unsafelyUnwrapped[pointer][index])
    }

    /// Stores `value` as the buffer's sample type: integers rounded and clipped, as
    /// AVAudioConverter does. Thread: the buffer's.
    func setSample(_ value: Float, channel: Int, frame: Int) {
        let (pointer, index) = format.isInterleaved ? (0, frame * stride + channel) : (channel, frame)
        if let floats {
            floats[pointer][index] = value
        } else if let shorts {
            shorts[pointer][index] = Int16(Self.scaled(value, by: 32_768))
        } else if let ints {
            ints[pointer][index] = Int32(Self.scaled(value, by: 2_147_483_648))
        } else {
            doubles.unsafelyUnwrapped[pointer][index] = Double(value)
        }
    }

    /// `value * scale` rounded and clipped to the integer's range; NaN is 0.
    private static func scaled(_ value: Float, by scale: Double) -> Int64 {
        guard !value.isNaN else { return 0 }
        return Int64(min(max((Double(value) * scale).rounded(), -scale), scale - 1))
    }
}
