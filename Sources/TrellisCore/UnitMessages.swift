/// Something a unit produced while it ran that its host should hear of: a line a
/// plugin logged, a MIDI message a plugin sent on one of its MIDI outputs.
public enum UnitMessage: Sendable, Equatable {
    public enum LogLevel: String, Sendable, CaseIterable {
        case error, warning, note, trace
    }

    case log(LogLevel, String)
    /// `bus` is the unit's MIDI output bus that carried it.
    case midi(TimedMIDIMessage, bus: Int)
    /// The unit stopped working and is silenced: its process crashed or missed its
    /// deadline (the cause in words), at the cycle of `sampleTime` (-1 when unknown).
    case failed(String, sampleTime: Int64)
    /// The unit's process answered `cycles` cycles past its deadline; each was output
    /// as on a fault (silence or its input), and it plays on.
    case late(cycles: Int)
}

/// A unit whose kernel leaves messages for the control side. The kernel writes them
/// into lock-free rings on the audio thread; the engine's finish service takes them
/// (`drainMessages`) a few milliseconds later and hands them to its listeners as
/// notices that name the node.
///
/// Thread: `drainMessages` is called off the audio thread, by one caller at a time,
/// possibly while the control thread initializes or uninitializes the unit, so a unit
/// guards what it reads there with a lock of its own.
public protocol UnitMessageSource: AnyObject {
    /// Calls `deliver` with every message left since the last call, oldest first per
    /// kind, and returns how many messages its rings had to drop since then because
    /// they were full.
    func drainMessages(_ deliver: (UnitMessage) -> Void) -> Int
}
