import TrellisCore

/// The MIDI events of one process cycle, ordered by frame, in memory allocated once.
///
/// The head node fills the list before it calls the render source, which reads it during
/// the same render call (LV2 atom ports take the events with their frame offsets). The
/// object owns the memory; the audio thread fills it through `writer` and the engine
/// reads it through `view`, plain values with no reference to the object.
/// Thread: filled and read on the audio thread; created on the control side.
public final class MIDIEventList: @unchecked Sendable {
    /// The list's working side.
    let writer: MIDIEventWriter
    private let memory = Arena()

    public init(eventCapacity: Int, byteCapacity: Int) {
        writer = MIDIEventWriter(eventCapacity: max(1, eventCapacity), byteCapacity: max(1, byteCapacity), in: memory)
    }

    public var eventCapacity: Int { writer.eventCapacity }
    public var byteCapacity: Int { writer.byteCapacity }

    /// The list as the engine reads it, with no reference to this object. Thread: any.
    public var view: MIDIInputView { writer.view }

    /// Events in the current cycle. Thread: audio.
    public var count: Int { writer.count }
    /// Events that did not fit in the current cycle. Thread: audio.
    public var droppedCount: Int { writer.droppedCount }

    /// The events of the current cycle, ordered by frame. Thread: audio.
    public var events: UnsafeBufferPointer<MIDIEvent> { writer.events }

    /// Thread: audio.
    public subscript(index: Int) -> MIDIEvent { writer.events[index] }

    /// Empties the list for a new cycle. Thread: audio.
    func reset() { writer.reset() }

    /// See `MIDIEventWriter.append`. Thread: audio.
    @discardableResult
    func append(frame: Int, port: Int, data: UnsafePointer<UInt8>, size: Int) -> Bool {
        writer.append(frame: frame, port: port, data: data, size: size)
    }
}

/// A `MIDIEventList`'s memory as plain pointers: what the process thread fills. Valid
/// while the list lives. Thread: audio.
struct MIDIEventWriter: BitwiseCopyable, @unchecked Sendable {
    let eventCapacity: Int
    let byteCapacity: Int
    private let storage: UnsafeMutablePointer<MIDIEvent>
    private let bytes: UnsafeMutablePointer<UInt8>
    /// [0] events, [1] bytes used, [2] events dropped, in the current cycle.
    private let counters: UnsafeMutablePointer<Int>

    /// Thread: control.
    init(eventCapacity: Int, byteCapacity: Int, in memory: Arena) {
        self.eventCapacity = eventCapacity
        self.byteCapacity = byteCapacity
        storage = memory.take(eventCapacity)
        bytes = memory.take(byteCapacity, repeating: 0)
        counters = memory.take(3, repeating: 0)
    }

    var view: MIDIInputView { MIDIInputView(events: UnsafePointer(storage), counter: UnsafePointer(counters)) }

    var count: Int { counters[0] }
    var droppedCount: Int { counters[2] }
    var events: UnsafeBufferPointer<MIDIEvent> { UnsafeBufferPointer(start: storage, count: counters[0]) }

    @inline(__always)
    func reset() {
        counters[0] = 0
        counters[1] = 0
        counters[2] = 0
    }

    /// Copies one event in, keeping the list ordered by frame (events with equal frames
    /// keep their arrival order). Returns false when it does not fit.
    @inline(__always)
    @discardableResult
    func append(frame: Int, port: Int, data: UnsafePointer<UInt8>, size: Int) -> Bool {
        let count = counters[0], used = counters[1]
        guard count < eventCapacity, size <= byteCapacity &- used else {
            counters[2] &+= 1
            return false
        }
        let destination = bytes + used
        var index = 0
        while index < size {
            destination[index] = data[index]
            index &+= 1
        }
        counters[1] = used &+ size
        let event = MIDIEvent(frame: frame, port: port, bytes: UnsafeBufferPointer(start: destination, count: size))
        // Each port's events arrive sorted; inserting from the back keeps merging cheap.
        var slot = count
        while slot > 0 && storage[slot &- 1].frame > frame {
            (storage + slot).initialize(to: storage[slot &- 1])
            slot &-= 1
        }
        (storage + slot).initialize(to: event)
        counters[0] = count &+ 1
        return true
    }
}
