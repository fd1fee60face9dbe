import CRubberBand
import CTrellisRubberBand
import TrellisCore

/// A real-time Rubber Band stretcher (the R3 "finer" engine, as a file player's live stretch uses) for a
/// source that can be read at any pace, such as a player node: the source feeds it the
/// frames `framesRequired` asks for and takes what is `available`. `make`, `set` and
/// `free` are the control side's, while the audio thread does not use it; `process`,
/// `retrieve` and the counts are the audio thread's and allocate nothing.
public struct SourceStretcher: @unchecked Sendable {
    let state: OpaquePointer
    public let channels: Int
    public let maximumBlock: Int

    /// A stretcher at `timeRatio` (output time per input time) and `pitchScale`. It meets
    /// the rates 0.25 ... 4 and the pitches ±2 octaves once first, so the windows they
    /// need are made here. Thread: control.
    public static func make(sampleRate: Double, channels: Int, maximumBlock: Int, timeRatio: Double, pitchScale: Double) -> SourceStretcher? {
        let options = Int32(RubberBandOptionProcessRealTime.rawValue) | Int32(RubberBandOptionEngineFiner.rawValue)
            | Int32(RubberBandOptionThreadingNever.rawValue) | Int32(RubberBandOptionPitchHighConsistency.rawValue)
        rubberband_set_default_debug_level(0)
        guard let state = trellis_rubberband_new_quiet(UInt32(sampleRate), UInt32(channels), options, 1, 1) else { return nil }
        rubberband_set_max_process_size(state, UInt32(maximumBlock))
        for ratio in [4.0, 0.25, 2, 0.5] { rubberband_set_time_ratio(state, ratio) }
        for cents in [-2400.0, -1200, 1200, 2400] { rubberband_set_pitch_scale(state, _exp2(cents / 1200)) }
        let stretcher = SourceStretcher(state: state, channels: channels, maximumBlock: maximumBlock)
        stretcher.set(timeRatio: timeRatio, pitchScale: pitchScale)
        rubberband_reset(state)
        return stretcher
    }

    /// Thread: control, while the audio thread does not use the stretcher.
    public func set(timeRatio: Double, pitchScale: Double) {
        rubberband_set_time_ratio(state, timeRatio)
        rubberband_set_pitch_scale(state, pitchScale)
    }

    /// Thread: control, once nothing uses it.
    public func free() { rubberband_delete(state) }

    /// Frames it needs before it can give more. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    public func framesRequired() -> Int { Int(_unsafePerformance { rubberband_get_samples_required(state) }) }

    /// Frames ready to retrieve. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    public func available() -> Int { max(0, Int(_unsafePerformance { rubberband_available(state) })) }

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    public func process(_ input: UnsafePointer<UnsafePointer<Float>?>, frames: Int) {
        _unsafePerformance { rubberband_process(state, input, UInt32(frames), 0) }
    }

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    public func retrieve(_ output: UnsafePointer<UnsafeMutablePointer<Float>?>, frames: Int) -> Int {
        Int(_unsafePerformance { rubberband_retrieve(state, output, UInt32(frames)) })
    }

    /// Empties it, for a new start. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    public func reset() { _unsafePerformance { rubberband_reset(state) } }
}
