import Glibc
import TrellisCore

/// A snapshot of a head node for the CLI's status line and for tests. Thread: any (a plain value).
public struct JACKStatus: Sendable {
    public enum Phase: Sendable, Equatable {
        case stopped
        case running
        /// The server went away; the head node is waiting for it to return.
        case interrupted
    }

    public var phase: Phase
    /// The name JACK gave the client (it may carry a suffix when the asked-for name was taken).
    public var clientName: String
    public var serverName: String
    public var sampleRate: Double
    public var bufferFrames: Int
    /// The largest cycle the render source is prepared for.
    public var preparedFrames: Int
    /// Time spent in process cycles as a fraction of their periods (1 = the whole period),
    /// over the cycles since the previous snapshot: a mean, not one cycle's sample, so
    /// two snapshots compare loads rather than two random cycles.
    public var dspLoad: Float
    /// The largest single cycle's load since the previous snapshot.
    public var dspLoadPeak: Float
    /// Time spent in cycles and the periods' time since the client started, in ns: a
    /// reader that keeps its previous pair takes the mean load over its own window.
    public var busyNanoseconds: Int = 0
    public var periodNanoseconds: Int = 0
    public var xrunCount: Int
    public var cycleCount: Int
    /// Cycles whose output was replaced by silence (see `JACKSilenceReason`).
    public var silencedCycleCount: Int
    /// Each output channel's largest magnitude since the previous snapshot, linear.
    public var outputPeaks: [Float]
    public var freewheeling: Bool
    public var interruptionCount: Int
    /// Our ports' current connections.
    public var connections: [PortConnection]
    /// Whether idle CPUs are kept responsive for the cycle's wakes (see `CPULatencyPolicy`).
    public var cpuLatency: CPULatencyState

    /// The output peaks in dBFS, floored at -160 dB.
    public var outputPeaksDecibels: [Float] {
        outputPeaks.map { $0 > 0 ? max(-160, 20 * log10f($0)) : -160 }
    }
}
