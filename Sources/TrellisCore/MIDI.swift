/// A unit that takes MIDI: an LV2 instrument or MIDI effect. The engine hands it the
/// events of the backend's MIDI inputs at the start of each cycle.
public protocol MIDIReceiver: AudioUnit {
    /// Whether this unit has a MIDI input at all. Thread: any.
    var acceptsMIDI: Bool { get }
    /// Takes one MIDI message for the coming render, at `frame` within it; false when it
    /// could not (no room, not initialized). Thread: audio.
    func receiveMIDI(_ bytes: UnsafeBufferPointer<UInt8>, frame: Int) -> Bool
}

/// Where a cycle's incoming MIDI comes from: the JACK head node's MIDI ports.
public protocol MIDIInputSource: AnyObject, Sendable {
    /// Calls `body` with each event of the current cycle, in frame order. Thread: audio.
    func forEachMIDIEvent(_ body: (UnsafeBufferPointer<UInt8>, Int) -> Void)
}
