import CRubberBand
import Synchronization
import TrellisCore

/// The time-pitch unit's real-time half when nothing upstream takes its rate: a pitch
/// shift by a real-time Rubber Band stretcher at time ratio 1. Each cycle's input goes in
/// and whatever the stretcher gives comes out through a FIFO that starts with `latency`
/// frames of silence, enough to cover the stretcher's look-ahead at any pitch, so every
/// cycle has its frames; the unit reports that latency and the graph aligns other paths
/// with it. The stretcher's own start delay depends on the pitch: it is primed for the
/// pitch it has when reset, and primed again at the first cycle only if that cycle's
/// events moved the pitch before any audio went in (as an LV2 host's first controls do).
/// Linked to a source, it passes its input through. The unit owns the stretcher and the
/// memory and frees them. Thread: audio, or the control side while no program runs it.
struct PitchShiftKernel: UnitKernel {
    let stretcher: OpaquePointer
    let channels: Int
    let latency: Int
    /// `channels` rings of `ringSize` frames.
    let fifo: UnsafeMutablePointer<Float>
    let ringSize: Int
    /// Scratch for what the stretcher gives: `channels` × `scratchFrames`.
    let scratch: UnsafeMutablePointer<Float>
    let scratchFrames: Int
    let inputTable: UnsafeMutablePointer<UnsafePointer<Float>?>
    let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    let linked: UnsafePointer<Atomic<Bool>>
    var readIndex = 0
    var writeIndex = 0
    /// Frames of output the stretcher starts with that belong before the input.
    var toDrop = 0
    /// True from a reset until the first cycle's audio goes in.
    var unstarted = true
    /// The pitch moved while unstarted: the priming is for another pitch.
    var primedForOtherPitch = false
    var pitchScale = 1.0
    /// The unit's `pitch` and `formants` parameters.
    static let pitchIndex = 1, formantsIndex = 2

    mutating func reset() {
        _unsafePerformance { rubberband_reset(stretcher) }
        fifo.update(repeating: 0, count: channels * ringSize)
        scratch.update(repeating: 0, count: channels * scratchFrames)
        readIndex = 0
        writeIndex = latency
        prime()
    }

    /// The start pad as silence, so the stretcher's first frame is the input's first, and
    /// its start delay to drop, both for the pitch now set (on a stretcher just reset).
    private mutating func prime() {
        unstarted = true
        primedForOtherPitch = false
        toDrop = Int(_unsafePerformance { rubberband_get_start_delay(stretcher) })
        for channel in 0..<channels { inputTable[channel] = UnsafePointer(scratch + channel * scratchFrames) }
        var pad = Int(_unsafePerformance { rubberband_get_preferred_start_pad(stretcher) })
        while pad > 0 {
            let count = min(pad, scratchFrames)
            _unsafePerformance { rubberband_process(stretcher, inputTable, UInt32(count), 0) }
            pad -= count
        }
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        if index == Self.formantsIndex {
            let option = value >= 0.5 ? RubberBandOptionFormantPreserved.rawValue : RubberBandOptionFormantShifted.rawValue
            _unsafePerformance { rubberband_set_formant_option(stretcher, Int32(option)) }
            return
        }
        guard index == Self.pitchIndex else { return }
        let scale = _exp2(Double(value) / 1200)
        guard scale != pitchScale else { return }
        pitchScale = scale
        _unsafePerformance { rubberband_set_pitch_scale(stretcher, scale) }
        if unstarted { primedForOtherPitch = true }
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        let input = context.inputs[0], output = context.outputs[0]
        let count = min(channels, min(input.channelCount, output.channelCount))
        let frames = context.frameCount
        if linked.pointee.load(ordering: .relaxed) {
            for channel in 0..<count {
                let source = input[channel], destination = output[channel]
                for frame in 0..<frames { destination[frame] = source[frame] }
            }
            return .ok
        }
        if primedForOtherPitch {
            _unsafePerformance { rubberband_reset(stretcher) }
            prime()
        }
        unstarted = false
        for channel in 0..<channels { inputTable[channel] = UnsafePointer(input[min(channel, input.channelCount - 1)]) }
        _unsafePerformance { rubberband_process(stretcher, inputTable, UInt32(frames), 0) }
        let mask = ringSize - 1
        while true {
            let ready = Int(_unsafePerformance { rubberband_available(stretcher) })
            guard ready > 0 else { break }
            for channel in 0..<channels { outputTable[channel] = scratch + channel * scratchFrames }
            let got = Int(_unsafePerformance { rubberband_retrieve(stretcher, outputTable, UInt32(min(ready, scratchFrames))) })
            guard got > 0 else { break }
            let dropped = min(toDrop, got)
            toDrop -= dropped
            for frame in dropped..<got where writeIndex - readIndex < ringSize {
                for channel in 0..<channels { fifo[channel * ringSize + (writeIndex & mask)] = scratch[channel * scratchFrames + frame] }
                writeIndex &+= 1
            }
        }
        for frame in 0..<frames {
            let available = writeIndex - readIndex > 0
            for channel in 0..<count {
                output[channel][frame] = available ? fifo[channel * ringSize + (readIndex & mask)] : 0
            }
            if available { readIndex &+= 1 }
        }
        return .ok
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
