/// A unit that can run its DSP in a process of its own (a hosted plugin), so that a
/// crash or a hang there silences that node only.
public protocol IsolatableUnit: AudioUnit {
    /// How `initialize` starts the unit in a bridge process; nil runs it in this one.
    /// Thread: control, while uninitialized.
    var isolation: Isolation? { get set }
    /// Why the bridge stopped (a signal, an exit status, a missed deadline); nil while
    /// it runs or when the unit is not isolated. Thread: control.
    var isolationFailure: String? { get }
    /// Starts the unit's process again from its last saved state. Thread: control.
    func restartIsolated() throws(AudioUnitError)
    /// Brings over what the unit's process logged so far, so that the next drain of
    /// its messages has it all (the end of an offline render). Thread: control.
    func collectIsolatedMessages()
}

/// How a unit runs in a bridge process of its own: how long the host waits for each
/// cycle, and what the node outputs once the process crashed, hung or was late.
public struct Isolation: Sendable, Equatable {
    public enum FaultOutput: String, Sendable, CaseIterable {
        /// Silence.
        case silence
        /// The node's input, where an input bus has the output bus's channels.
        case input
    }

    /// The share of each cycle's duration the bridge may take live (0.5: half the
    /// period). Offline a cycle may take 2 s.
    public var deadline: Double
    public var onFault: FaultOutput
    /// Start the process again by itself after a fault, from the last saved state.
    public var restartsAutomatically: Bool

    public static let deadlineRange = 0.05...1.0

    public init(deadline: Double = 0.5, onFault: FaultOutput = .silence, restartsAutomatically: Bool = false) {
        self.deadline = deadline
        self.onFault = onFault
        self.restartsAutomatically = restartsAutomatically
    }
}
