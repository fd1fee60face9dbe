/// What JACK's threads tell the control thread, as plain values that fit a lock-free ring.
enum JACKRealtimeEvent: BitwiseCopyable {
    case xrun
    case bufferSize(frames: UInt32)
    case sampleRate(UInt32)
    /// Some connection in the server changed; the control thread looks at ours.
    case portConnect
    /// A port appeared or went away: pending connections may now be possible, and a
    /// connection lost with a port that went away is to be made again when it returns.
    case portRegistration(id: UInt32, registered: Bool)
    case freewheel(Bool)
    case silenced(JACKSilenceReason, frames: UInt32)
    case resumed
    case prepareFailed(frames: UInt32, sampleRate: UInt32)
    /// MIDI events lost in one cycle on our `port`-th MIDI input (the cycle's list was
    /// full) or output (the port's buffer was full).
    case midiDropped(port: UInt16, output: Bool, count: UInt32)
}
