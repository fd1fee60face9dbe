import TrellisCore

/// Something that happened to a running JACK head node, the analog of an audio session
/// notification. Delivered to listeners on the head node's control thread, never on the
/// audio thread.
public enum JACKEvent: Sendable, Equatable, CustomStringConvertible {
    /// The server missed a deadline; `total` counts every xrun since start.
    case xrun(total: Int)
    case bufferSizeChanged(frames: Int)
    case sampleRateChanged(Double)
    /// One of our ports was connected or disconnected, by us or by anyone else.
    case routeChanged(JACKRouteChange)
    /// The server went away; the graph is kept and the head node waits for the server.
    case interruptionBegan(reason: String)
    /// The server is back, the ports are registered again and connections restored.
    case interruptionEnded
    case freewheelChanged(Bool)
    /// The head node started outputting silence instead of the render source's output.
    case outputSilenced(JACKSilenceReason, frames: Int)
    /// Output comes from the render source again.
    case outputResumed
    /// The render source could not prepare for new settings; output stays silent when
    /// cycles are larger than what it was last prepared for.
    case prepareFailed(BackendSettings, message: String)
    /// MIDI events lost in one cycle on one of our ports (full name): input that came
    /// faster than a cycle's event list holds, or output past the port's buffer.
    case midiEventsDropped(port: String, output: Bool, count: Int)
    /// Something did not work but nothing stops: a connection that could not be made.
    case warning(JACKWarning)
    /// Notifications were lost because a ring was full.
    case notificationsLost(count: Int)

    public var description: String {
        switch self {
        case .xrun(let total): return "xrun (\(total) so far)"
        case .bufferSizeChanged(let frames): return "buffer size changed to \(frames) frames"
        case .sampleRateChanged(let rate): return "sample rate changed to \(rate) Hz"
        case .routeChanged(let change): return "route change: \(change)"
        case .interruptionBegan(let reason): return "interruption began: \(reason)"
        case .interruptionEnded: return "interruption ended"
        case .freewheelChanged(let on): return "freewheel \(on ? "on" : "off")"
        case .outputSilenced(let reason, let frames): return "output silenced (\(reason), \(frames) frames)"
        case .outputResumed: return "output resumed"
        case .prepareFailed(let settings, let message):
            return "prepare for \(settings.maximumFrames) frames at \(settings.sampleRate) Hz failed: \(message)"
        case .midiEventsDropped(let port, let output, let count):
            let what = count == 1 ? "1 MIDI event" : "\(count) MIDI events"
            return output
                ? "JACK MIDI output \(port): \(what) did not fit in one cycle's buffer and \(count == 1 ? "was" : "were") lost"
                : "JACK MIDI input \(port): \(what) did not fit in one cycle's list and \(count == 1 ? "was" : "were") dropped"
        case .warning(let warning): return "warning: \(warning)"
        case .notificationsLost(let count): return "\(count) notifications lost"
        }
    }
}

/// A connection of one of our ports that appeared or went away.
public struct JACKRouteChange: Sendable, Hashable, CustomStringConvertible {
    /// Our port's full name (`client:in_1`).
    public var port: String
    /// The other port's full name.
    public var peer: String
    public var connected: Bool

    public init(port: String, peer: String, connected: Bool) {
        self.port = port
        self.peer = peer
        self.connected = connected
    }

    public var description: String { "\(port) \(connected ? "connected to" : "disconnected from") \(peer)" }
}

/// Why a cycle's output was replaced by silence.
public enum JACKSilenceReason: UInt8, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// JACK asked for more frames than the render source was prepared for.
    case framesExceedPrepared
    /// The render source returned a status other than `.ok`.
    case renderFailed
    /// The render source produced NaN or infinity.
    case nonFiniteOutput

    public var description: String {
        switch self {
        case .framesExceedPrepared: return "more frames than prepared"
        case .renderFailed: return "render failed"
        case .nonFiniteOutput: return "non-finite output"
        }
    }
}

/// A problem that is reported but does not stop the head node.
public enum JACKWarning: Sendable, Hashable, CustomStringConvertible {
    case noMatchingPorts(pattern: String, side: String)
    case connectionFailed(from: String, to: String, code: Int32)
    case disconnectionFailed(from: String, to: String, code: Int32)
    case invalidPattern(String, reason: String)
    case reconnectFailed(reason: String)
    /// Idle CPUs could not be kept responsive (`CPULatencyPolicy`): wakes of workers and
    /// bridged plugins cost more.
    case cpuLatencyRefused(reason: String)

    public var description: String {
        switch self {
        case .noMatchingPorts(let pattern, let side):
            return "no \(side) port matches \"\(pattern)\""
        case .connectionFailed(let from, let to, let code):
            return "could not connect \(from) to \(to) (error \(code))"
        case .disconnectionFailed(let from, let to, let code):
            return "could not disconnect \(from) from \(to) (error \(code))"
        case .invalidPattern(let pattern, let reason):
            return "invalid port pattern \"\(pattern)\": \(reason)"
        case .reconnectFailed(let reason):
            return "the server is back but the client could not be set up again: \(reason)"
        case .cpuLatencyRefused(let reason):
            return "idle CPUs cannot be kept responsive (\(reason)); waking render workers and isolated plugins costs more"
        }
    }
}
