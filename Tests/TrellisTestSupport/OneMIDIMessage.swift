import TrellisCore

/// One MIDI message at a frame of a cycle, as a backend's MIDI input port 0 delivers
/// it: a cycle sees it while it is armed.
public final class OneMIDIMessage: @unchecked Sendable {
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let event: UnsafeMutablePointer<MIDIEvent>
    private let count: UnsafeMutablePointer<Int>

    public init(_ message: [UInt8], frame: Int, armed: Bool = true) {
        bytes = .allocate(capacity: message.count)
        _ = bytes.initialize(from: message)
        event = .allocate(capacity: 1)
        event.initialize(to: MIDIEvent(frame: frame, port: 0, bytes: UnsafeBufferPointer(bytes)))
        count = .allocate(capacity: 1)
        count.initialize(to: armed ? 1 : 0)
    }

    deinit {
        bytes.deallocate()
        event.deallocate()
        count.deallocate()
    }

    public var view: MIDIInputView { MIDIInputView(events: UnsafePointer(event), counter: UnsafePointer(count)) }

    /// Whether the next cycle sees the message.
    public var isArmed: Bool {
        get { count.pointee == 1 }
        set { count.pointee = newValue ? 1 : 0 }
    }
}
