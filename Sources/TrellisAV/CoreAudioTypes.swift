import Foundation

/// Core Audio's C types that AVFAudio's blocks hand over, laid out as Core Audio lays
/// them out, with the Swift helpers Apple's SDK adds to them.
public typealias OSStatus = Int32
public let noErr: OSStatus = 0

/// One buffer of an `AudioBufferList`: its channels (1 for deinterleaved audio), its
/// size in bytes and its samples.
public struct AudioBuffer: @unchecked Sendable {
    public var mNumberChannels: UInt32
    public var mDataByteSize: UInt32
    public var mData: UnsafeMutableRawPointer?

    public init(mNumberChannels: UInt32 = 0, mDataByteSize: UInt32 = 0, mData: UnsafeMutableRawPointer? = nil) {
        self.mNumberChannels = mNumberChannels
        self.mDataByteSize = mDataByteSize
        self.mData = mData
    }
}

/// A count and that many `AudioBuffer`s, the first inline and the rest after it, as in C.
public struct AudioBufferList: @unchecked Sendable {
    public var mNumberBuffers: UInt32
    public var mBuffers: AudioBuffer

    public init(mNumberBuffers: UInt32 = 0, mBuffers: AudioBuffer = AudioBuffer()) {
        self.mNumberBuffers = mNumberBuffers
        self.mBuffers = mBuffers
    }

    /// Where the buffers start, in bytes from the list's start.
    @usableFromInline static let buffersOffset = MemoryLayout<AudioBufferList>.offset(of: \.mBuffers)!

    /// Bytes a list of `maximumBuffers` buffers takes.
    public static func sizeInBytes(maximumBuffers: Int) -> Int {
        buffersOffset + max(1, maximumBuffers) * MemoryLayout<AudioBuffer>.stride
    }

    /// A zeroed list with room for `maximumBuffers`; free it with `free(_:)` of its pointer.
    public static func allocate(maximumBuffers: Int) -> UnsafeMutableAudioBufferListPointer {
        // Owner: the caller, as with Core Audio's own; `free(_:)` of its pointer frees it.
        let raw = UnsafeMutableRawPointer.allocate(byteCount: sizeInBytes(maximumBuffers: maximumBuffers), alignment: MemoryLayout<AudioBufferList>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: sizeInBytes(maximumBuffers: maximumBuffers))
        let list = raw.bindMemory(to: AudioBufferList.self, capacity: 1)
        list.pointee.mNumberBuffers = UInt32(maximumBuffers)
        return UnsafeMutableAudioBufferListPointer(list)
    }
}

/// An `AudioBufferList` in memory as a collection of its buffers, as Apple's SDK has it.
public struct UnsafeMutableAudioBufferListPointer: MutableCollection, RandomAccessCollection, @unchecked Sendable {
    public let unsafeMutablePointer: UnsafeMutablePointer<AudioBufferList>

    public init(_ pointer: UnsafeMutablePointer<AudioBufferList>) { unsafeMutablePointer = pointer }

    public init?(_ pointer: UnsafeMutablePointer<AudioBufferList>?) {
        guard let pointer else { return nil }
        unsafeMutablePointer = pointer
    }

    public var unsafePointer: UnsafePointer<AudioBufferList> { UnsafePointer(unsafeMutablePointer) }

    public var count: Int {
        @inlinable get { Int(unsafeMutablePointer.pointee.mNumberBuffers) }
        @inlinable nonmutating set { unsafeMutablePointer.pointee.mNumberBuffers = UInt32(newValue) }
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable var buffers: UnsafeMutablePointer<AudioBuffer> {
        (UnsafeMutableRawPointer(unsafeMutablePointer) + AudioBufferList.buffersOffset).assumingMemoryBound(to: AudioBuffer.self)
    }

    public subscript(index: Int) -> AudioBuffer {
        @inlinable get { buffers[index] }
        @inlinable nonmutating set { buffers[index] = newValue }
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The bytes of `audioBuffer`.
    @inlinable
    public init(_ audioBuffer: AudioBuffer) {
        self.init(start: audioBuffer.mData, count: Int(audioBuffer.mDataByteSize))
    }
}

extension UnsafeMutableBufferPointer {
    /// The samples of `audioBuffer`, as `Element`s.
    @inlinable
    public init(_ audioBuffer: AudioBuffer) {
        self.init(start: audioBuffer.mData?.assumingMemoryBound(to: Element.self), count: Int(audioBuffer.mDataByteSize) / MemoryLayout<Element>.stride)
    }
}

public struct AudioTimeStampFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let sampleTimeValid = AudioTimeStampFlags(rawValue: 1 << 0)
    public static let hostTimeValid = AudioTimeStampFlags(rawValue: 1 << 1)
    public static let rateScalarValid = AudioTimeStampFlags(rawValue: 1 << 2)
    public static let wordClockTimeValid = AudioTimeStampFlags(rawValue: 1 << 3)
    public static let smpteTimeValid = AudioTimeStampFlags(rawValue: 1 << 4)
    public static let sampleHostTimeValid: AudioTimeStampFlags = [.sampleTimeValid, .hostTimeValid]
}

public struct SMPTETime: Sendable {
    public var mSubframes: Int16 = 0
    public var mSubframeDivisor: Int16 = 0
    public var mCounter: UInt32 = 0
    public var mType: UInt32 = 0
    public var mFlags: UInt32 = 0
    public var mHours: Int16 = 0
    public var mMinutes: Int16 = 0
    public var mSeconds: Int16 = 0
    public var mFrames: Int16 = 0
    public init() {}
}

/// Core Audio's time stamp: the sample time of a cycle's first frame and its host time
/// (nanoseconds of the monotonic clock here; see `AVAudioTime`).
public struct AudioTimeStamp: Sendable {
    public var mSampleTime: Double = 0
    public var mHostTime: UInt64 = 0
    public var mRateScalar: Double = 0
    public var mWordClockTime: UInt64 = 0
    public var mSMPTETime = SMPTETime()
    public var mFlags: AudioTimeStampFlags = []
    public var mReserved: UInt32 = 0
    public init() {}
}
