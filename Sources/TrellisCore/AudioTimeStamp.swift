import CTrellisShim

/// When a render cycle happens: the sample time of its first frame on the graph's
/// clock, and the host time (monotonic nanoseconds) at which it was asked for.
public struct AudioTimeStamp: Hashable, Sendable, BitwiseCopyable {
    public var sampleTime: Int64
    public var hostTime: UInt64

    @inlinable
    public init(sampleTime: Int64, hostTime: UInt64 = 0) {
        self.sampleTime = sampleTime
        self.hostTime = hostTime
    }

    public static let zero = AudioTimeStamp(sampleTime: 0, hostTime: 0)

    /// The time stamp `frames` later on the sample clock. Thread: any.
    @inlinable
    public func advanced(by frames: Int) -> AudioTimeStamp {
        AudioTimeStamp(sampleTime: sampleTime + Int64(frames), hostTime: hostTime)
    }
}

/// The monotonic clock that host times are measured on. Thread: any.
public enum HostClock {
    @inline(__always)
    public static func now() -> UInt64 { trellis_host_time_ns() }
}
