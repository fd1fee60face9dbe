import CJack
import Synchronization
import TrellisCore

/// How a client takes part in JACK transport, the transport every client of a server
/// shares: not at all (its own clock), following it (its state, position and, when a
/// timebase master gives them, bars and beats), or also being its timebase master, so
/// other clients read this session's tempo and meter.
public enum JACKTransportRole: String, Sendable, CaseIterable {
    case none, follow, master
}

/// The engine's clock as the last cycle left it, which JACK's timebase callback (on the
/// same thread, after `process`) announces as bars and beats. Plain memory in its
/// owner's arena. Thread: audio.
struct JACKTimebase {
    let clock: UnsafeMutablePointer<TimeContext>

    init(in memory: Arena) {
        clock = memory.place(TimeContext())
    }

    /// Fills the bars-and-beats fields of JACK's position for its frame.
    func fill(_ position: UnsafeMutablePointer<jack_position_t>) {
        let time = clock.pointee
        let rate = Double(position.pointee.frame_rate)
        guard time.tempo > 0, time.beatsPerBar > 0, rate > 0 else { return }
        let frame = Int64(position.pointee.frame)
        let beats = max(0, time.anchorBeat + Double(frame - time.anchorFrame) * time.tempo / (60 * rate))
        let ticksPerBeat = Double(BarBeatTick.ticksPerBeat)
        let barIndex = Double(TimeContext.whole(clamping: beats / time.beatsPerBar, to: Double(Int32.max - 1)))
        let inBar = beats - barIndex * time.beatsPerBar
        let wholeBeats = Double(TimeContext.whole(clamping: inBar, to: Double(Int32.max - 1)))
        position.pointee.bar = Int32(barIndex) + 1
        position.pointee.beat = Int32(wholeBeats) + 1
        position.pointee.tick = Int32(TimeContext.whole(clamping: (inBar - wholeBeats) * ticksPerBeat, to: Double(Int32.max)))
        position.pointee.bar_start_tick = barIndex * time.beatsPerBar * ticksPerBeat
        position.pointee.beats_per_bar = Float(time.beatsPerBar)
        position.pointee.beat_type = Float(time.beatUnit)
        position.pointee.ticks_per_beat = ticksPerBeat
        position.pointee.beats_per_minute = time.tempo
        position.pointee.valid = jack_position_bits_t(position.pointee.valid.rawValue | JackPositionBBT.rawValue)
    }
}

extension JACKProcessCalls {
    /// JACK's transport for the cycle that starts now; its bars and beats too, unless
    /// they are this client's own (as master it announces the engine's). Thread: audio.
    @inline(__always)
    static func queryTransport(_ client: OpaquePointer, takingBars: Bool) -> ExternalTransport {
        var position = jack_position_t()
        let state = JACKProcessCalls.transport(client, &position)
        var transport = ExternalTransport(isRolling: state == JackTransportRolling, frame: Int64(position.frame))
        // Another client's figures, taken only when finite and in range (a timebase
        // master can write anything there).
        if takingBars, position.valid.rawValue & JackPositionBBT.rawValue != 0, (1...64).contains(position.beats_per_bar),
           position.ticks_per_beat.isFinite, position.ticks_per_beat >= 1, (1...999).contains(position.beats_per_minute),
           (1...64).contains(position.beat_type), position.bar >= 1, position.beat >= 1, position.tick >= 0 {
            transport.hasBars = true
            transport.beatsPerBar = Double(position.beats_per_bar)
            transport.beat = Double(position.bar - 1) * transport.beatsPerBar + Double(position.beat - 1)
                + Double(position.tick) / position.ticks_per_beat
            transport.tempo = position.beats_per_minute
            transport.beatUnit = Int32(position.beat_type)
        }
        return transport
    }
}

extension JACKHeadNode {
    /// Starts, stops or moves JACK's transport, every client's; false for changes JACK
    /// transport does not take (tempo and meter are the timebase master's), or when no
    /// client runs. Thread: control.
    @discardableResult
    public func transport(_ command: TransportCommand) -> Bool {
        control.withLock { control in
            guard let client = control.client else { return false }
            switch command {
            case .play: jack_transport_start(client)
            case .stop: jack_transport_stop(client)
            case .locate(let frame): return jack_transport_locate(client, jack_nframes_t(clamping: frame)) == 0
            default: return false
            }
            return true
        }
    }

    /// How this client takes part in JACK transport.
    public var transportRole: JACKTransportRole { configuration.transport }
}
