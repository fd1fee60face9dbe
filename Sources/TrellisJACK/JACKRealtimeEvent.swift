/// What JACK's threads tell the control thread, as plain values that fit a lock-free ring.
enum JACKRealtimeEvent: BitwiseCopyable {
    case xrun
    case bufferSize(frames: UInt32)
    case sampleRate(UInt32)
    /// Some connection in the server changed; the control thread looks at ours.
    case portConnect
    /// Some port appeared or went away; pending connections may now be possible.
    case portRegistration
    case freewheel(Bool)
    case silenced(JACKSilenceReason, frames: UInt32)
    case resumed
    case prepareFailed(frames: UInt32, sampleRate: UInt32)
    case midiDropped(count: UInt32)
}
