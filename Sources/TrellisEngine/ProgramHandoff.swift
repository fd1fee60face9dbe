/// A published program on its way through the engine's slots: the program (retained
/// once, as an opaque pointer) and its place in the order of publishing.
///
/// Made on the control side by `publish`; moved by the audio thread (pending, current,
/// retired) as one plain pointer; freed on the control side by `release`.
struct ProgramHandoff {
    /// A `RenderProgram`, retained once.
    let program: UnsafeMutableRawPointer
    let generation: UInt64

    /// Thread: control.
    static func make(_ program: RenderProgram, generation: UInt64) -> UnsafeMutablePointer<ProgramHandoff> {
        // Owner: the engine's slots until `release`, the one place that frees it.
        let handoff = UnsafeMutablePointer<ProgramHandoff>.allocate(capacity: 1)
        handoff.initialize(to: ProgramHandoff(program: Unmanaged.passRetained(program).toOpaque(), generation: generation))
        return handoff
    }

    /// Releases the program and frees the handoff. Thread: control, once the audio
    /// thread has let go of it (or never saw it).
    static func release(_ handoff: UnsafeMutablePointer<ProgramHandoff>) {
        Unmanaged<RenderProgram>.fromOpaque(handoff.pointee.program).release()
        handoff.deinitialize(count: 1)
        handoff.deallocate()
    }
}
