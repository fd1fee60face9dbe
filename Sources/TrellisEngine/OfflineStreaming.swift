import TrellisCore

/// A unit or bus observer that a disk or delivery thread feeds or drains through a
/// ring: the file player, the recorder, a tap.
///
/// Live, the ring rides out the thread's delays and a late thread costs an underrun or
/// dropped frames. An offline render runs faster than real time, so its driver calls
/// `waitForStreaming` on every participant before each cycle; that blocks until the
/// cycle cannot underrun or overflow, which makes offline output exact.
public protocol OfflineStreaming: AnyObject {
    /// Blocks until the next `frameCount` frames can render without running dry or
    /// dropping anything (or until the participant has nothing more to stream).
    /// Thread: the thread that renders, between cycles; never from a real-time callback.
    func waitForStreaming(frameCount: Int)
}

extension ProgramPlan {
    /// The units and observers of this plan that stream through a disk or delivery
    /// thread, for an offline driver to wait on. Thread: control.
    public var streamingParticipants: [any OfflineStreaming] {
        units.compactMap { $0.unit as? any OfflineStreaming } + observers.compactMap { $0.observer as? any OfflineStreaming }
    }
}
