/// The MIDI of one bus for one cycle: `.midi` render events in time order, in memory a
/// compiled program (or a backend, for its MIDI output ports) allocated once. A kernel
/// appends what it outputs on a MIDI output bus here; the program merges what its MIDI
/// inputs are connected to into its event list. Thread: audio.
public struct MIDIBuffer: BitwiseCopyable, @unchecked Sendable {
    public let events: UnsafeMutablePointer<RenderEvent>
    public let counter: UnsafeMutablePointer<Int>
    public let capacity: Int
    /// Messages `append` had no room for, until the program reports and zeroes it.
    public let dropped: UnsafeMutablePointer<Int>

    @inlinable
    public init(events: UnsafeMutablePointer<RenderEvent>, counter: UnsafeMutablePointer<Int>, capacity: Int, dropped: UnsafeMutablePointer<Int>) {
        self.events = events
        self.counter = counter
        self.capacity = capacity
        self.dropped = dropped
    }

    /// The messages dropped since the last call. Thread: audio.
    @inlinable @inline(__always)
    public func takeDropped() -> Int {
        let count = dropped.pointee
        dropped.pointee = 0
        return count
    }

    @inlinable @inline(__always)
    public var count: Int { counter.pointee }

    @inlinable @inline(__always)
    public subscript(index: Int) -> RenderEvent { events[index] }

    @inlinable @inline(__always)
    public func clear() { counter.pointee = 0 }

    /// Adds a message at frame `offset` of the cycle (frames from the start of the whole
    /// call, never of a segment). An offset earlier than the last event's is moved up
    /// to it, so the buffer stays in time order. False when the buffer is full: the
    /// message is dropped.
    @inlinable @inline(__always)
    @discardableResult
    public func append(status: UInt8, data1: UInt8, data2: UInt8, length: UInt8, offset: Int32) -> Bool {
        let count = counter.pointee
        guard length > 0, length <= 3 else { return false }
        guard count < capacity else {
            dropped.pointee &+= 1
            return false
        }
        let last = count > 0 ? events[count &- 1].offset : 0
        events[count] = .midi(status: status, data1: data1, data2: data2, length: length, bus: 0, offset: max(offset, last))
        counter.pointee = count &+ 1
        return true
    }
}

/// The MIDI buses of one side of a unit (or a backend's MIDI output ports), as a
/// borrowed view of plain memory. Thread: audio.
public struct MIDIBuses: BitwiseCopyable, @unchecked Sendable {
    public let base: UnsafePointer<MIDIBuffer>?
    public let count: Int

    @inlinable
    public init(base: UnsafePointer<MIDIBuffer>?, count: Int) {
        self.base = base
        self.count = count
    }

    /// No buses. (A computed value: a static stored one is initialized behind a lock.)
    @inlinable
    public static var none: MIDIBuses { MIDIBuses(base: nil, count: 0) }

    @inlinable @inline(__always)
    public subscript(index: Int) -> MIDIBuffer { base.unsafelyUnwrapped[index] }
}

/// MIDI buffers in memory allocated once: `count` buffers of `capacity` events each,
/// and the table of views over them. Thread: made and freed on the control side; the
/// buffers are the audio thread's while a program or backend runs.
public final class MIDIBufferStorage: @unchecked Sendable {
    public let count: Int
    public let capacity: Int
    private let memory = Arena()
    private let views: UnsafeMutablePointer<MIDIBuffer>

    public init(count: Int, capacity: Int) {
        self.count = count
        self.capacity = capacity
        let events = memory.take(count * capacity, of: RenderEvent.self)
        let counters = memory.take(count, repeating: 0), drops = memory.take(count, repeating: 0)
        views = memory.take(count)
        for index in 0..<count {
            (views + index).initialize(to: MIDIBuffer(
                events: events + index * capacity, counter: counters + index, capacity: capacity, dropped: drops + index))
        }
    }

    /// Every buffer, in order. Thread: any.
    public var buses: MIDIBuses { MIDIBuses(base: UnsafePointer(views), count: count) }

    /// Buffers `range` as buses. Thread: any.
    public func buses(_ range: Range<Int>) -> MIDIBuses {
        MIDIBuses(base: UnsafePointer(views + range.lowerBound), count: range.count)
    }

    /// Thread: any.
    public subscript(index: Int) -> MIDIBuffer { views[index] }
}
