/// One MIDI message that arrived on a backend's MIDI input during the current cycle.
public struct MIDIEvent: @unchecked Sendable, BitwiseCopyable {
    /// Offset of the event within the cycle, in frames.
    public var frame: Int
    /// Which MIDI input port (0-based) it came from.
    public var port: Int
    /// The message bytes; valid only during the render call that sees them.
    public var bytes: UnsafeBufferPointer<UInt8>

    public init(frame: Int, port: Int, bytes: UnsafeBufferPointer<UInt8>) {
        self.frame = frame
        self.port = port
        self.bytes = bytes
    }

    /// The bytes of a channel or system message of up to three bytes; 0 for longer
    /// messages (system exclusive), which kernels do not receive. Thread: any.
    @inline(__always)
    public var length: UInt8 { bytes.count <= 3 ? UInt8(bytes.count) : 0 }
    @inline(__always)
    public var status: UInt8 { bytes.count > 0 ? bytes[0] : 0 }
    @inline(__always)
    public var data1: UInt8 { bytes.count > 1 ? bytes[1] : 0 }
    @inline(__always)
    public var data2: UInt8 { bytes.count > 2 ? bytes[2] : 0 }
}

/// A borrowed view of a backend's MIDI input for the current cycle, ordered by frame:
/// what the engine reads, with no reference to the list that owns the memory.
/// Thread: audio.
public struct MIDIInputView: BitwiseCopyable, @unchecked Sendable {
    public let events: UnsafePointer<MIDIEvent>
    public let counter: UnsafePointer<Int>

    public init(events: UnsafePointer<MIDIEvent>, counter: UnsafePointer<Int>) {
        self.events = events
        self.counter = counter
    }

    @inline(__always)
    public var count: Int { counter.pointee }

    @inline(__always)
    public subscript(index: Int) -> MIDIEvent { events[index] }
}
