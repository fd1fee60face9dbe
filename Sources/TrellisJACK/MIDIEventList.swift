import TrellisCore

/// The MIDI events of one process cycle, ordered by frame, in memory allocated once.
///
/// The head node fills the list before it calls the render source, which reads it during
/// the same render call (LV2 atom ports take the events with their frame offsets).
/// Thread: filled and read on the audio thread; created on the control side.
public final class MIDIEventList: @unchecked Sendable {
    public let eventCapacity: Int
    public let byteCapacity: Int
    private let storage: UnsafeMutablePointer<MIDIEvent>
    private let bytes: UnsafeMutablePointer<UInt8>
    private let counter: UnsafeMutablePointer<Int>
    /// Events in the current cycle. Thread: audio.
    public private(set) var count: Int {
        get { counter.pointee }
        set { counter.pointee = newValue }
    }
    private var bytesUsed = 0
    /// Events that did not fit in the current cycle. Thread: audio.
    public private(set) var droppedCount = 0

    public init(eventCapacity: Int, byteCapacity: Int) {
        self.eventCapacity = max(1, eventCapacity)
        self.byteCapacity = max(1, byteCapacity)
        storage = .allocate(capacity: self.eventCapacity)
        bytes = .allocate(capacity: self.byteCapacity)
        bytes.initialize(repeating: 0, count: self.byteCapacity)
        counter = .allocate(capacity: 1)
        counter.initialize(to: 0)
    }

    /// The list as the engine reads it, with no reference to this object. Thread: any.
    public var view: MIDIInputView { MIDIInputView(events: UnsafePointer(storage), counter: UnsafePointer(counter)) }

    deinit {
        storage.deallocate()
        bytes.deallocate()
        counter.deallocate()
    }

    /// The events of the current cycle, ordered by frame. Thread: audio.
    @inline(__always)
    public var events: UnsafeBufferPointer<MIDIEvent> { UnsafeBufferPointer(start: storage, count: count) }

    /// Thread: audio.
    @inline(__always)
    public subscript(index: Int) -> MIDIEvent { storage[index] }

    /// Empties the list for a new cycle. Thread: audio.
    @inline(__always)
    func reset() {
        count = 0
        bytesUsed = 0
        droppedCount = 0
    }

    /// Copies one event in, keeping the list ordered by frame (events with equal frames
    /// keep their arrival order). Returns false when it does not fit. Thread: audio.
    @discardableResult
    func append(frame: Int, port: Int, data: UnsafePointer<UInt8>, size: Int) -> Bool {
        guard count < eventCapacity, size <= byteCapacity - bytesUsed else {
            droppedCount += 1
            return false
        }
        let destination = bytes + bytesUsed
        destination.update(from: data, count: size)
        bytesUsed += size
        let event = MIDIEvent(frame: frame, port: port, bytes: UnsafeBufferPointer(start: destination, count: size))
        // Each port's events arrive sorted; inserting from the back keeps merging cheap.
        var slot = count
        while slot > 0 && storage[slot - 1].frame > frame {
            (storage + slot).initialize(to: storage[slot - 1])
            slot -= 1
        }
        (storage + slot).initialize(to: event)
        count += 1
        return true
    }
}
