import CTrellisShim

/// The calling thread's standing as an audio thread, and its floating-point mode.
public enum AudioThread {
    /// Marks the calling thread as rendering audio and flushes denormals to zero on it
    /// (FTZ/DAZ), returning the previous floating-point state. Thread: the render thread.
    public static func enter() -> UInt32 {
        trellis_set_audio_thread(1)
        return trellis_enable_flush_denormals()
    }

    /// Undoes `enter`. Thread: the render thread.
    public static func leave(restoring state: UInt32) {
        trellis_restore_float_state(state)
        trellis_set_audio_thread(0)
    }

    /// True on a thread that entered and did not leave. Thread: any.
    public static var isCurrent: Bool { trellis_is_audio_thread() != 0 }

    /// Traps in debug builds when a control-only API is called from an audio thread.
    @inline(__always)
    public static func assertNotCurrent(_ api: StaticString = #function) {
        assert(!isCurrent, "\(api) is a control-thread API and was called on an audio thread")
    }
}
