/// One event inside a kernel's cycle: a parameter change (with its ramp) or a MIDI
/// message, at a frame offset within the cycle. Plain data, made by the engine on the
/// audio thread and read by the kernel in the same cycle.
public struct RenderEvent: BitwiseCopyable, Sendable {
    public enum Kind: UInt8, BitwiseCopyable, Sendable {
        case parameter
        case midi
    }

    /// Frames from the start of the cycle.
    public var offset: Int32
    public var kind: Kind
    /// MIDI: how many of `status`, `data1`, `data2` the message uses (1...3).
    public var length: UInt8
    public var status: UInt8
    public var data1: UInt8
    public var data2: UInt8
    /// Parameter: its index in the unit's parameter list. MIDI: the input bus.
    public var index: Int32
    public var value: Float
    public var rampFrames: Int32

    @inlinable
    public init(
        offset: Int32, kind: Kind, length: UInt8, status: UInt8, data1: UInt8, data2: UInt8,
        index: Int32, value: Float, rampFrames: Int32
    ) {
        self.offset = offset
        self.kind = kind
        self.length = length
        self.status = status
        self.data1 = data1
        self.data2 = data2
        self.index = index
        self.value = value
        self.rampFrames = rampFrames
    }

    @inlinable @inline(__always)
    public static func parameter(index: Int32, value: Float, rampFrames: Int32, offset: Int32) -> RenderEvent {
        RenderEvent(offset: offset, kind: .parameter, length: 0, status: 0, data1: 0, data2: 0,
                    index: index, value: value, rampFrames: rampFrames)
    }

    @inlinable @inline(__always)
    public static func midi(status: UInt8, data1: UInt8, data2: UInt8, length: UInt8, bus: Int32, offset: Int32) -> RenderEvent {
        RenderEvent(offset: offset, kind: .midi, length: length, status: status, data1: data1, data2: data2,
                    index: bus, value: 0, rampFrames: 0)
    }
}

/// A kernel's events for one cycle, in time order (equal offsets keep arrival order).
/// A borrowed view: the engine owns the memory. Thread: audio.
public struct RenderEventList: BitwiseCopyable, @unchecked Sendable {
    public let base: UnsafePointer<RenderEvent>?
    public let count: Int

    @inlinable @inline(__always)
    public init(base: UnsafePointer<RenderEvent>?, count: Int) {
        self.base = base
        self.count = count
    }

    public static let empty = RenderEventList(base: nil, count: 0)

    @inlinable @inline(__always)
    public subscript(index: Int) -> RenderEvent { base.unsafelyUnwrapped[index] }
}
