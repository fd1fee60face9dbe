import Glibc
import Synchronization
import TrellisCore

/// The time-pitch unit's real-time half when nothing upstream takes its rate: a pitch
/// shift by a real-time Rubber Band stretcher at time ratio 1 (`PitchShifterCore`). Each
/// cycle's input goes to the stretcher and whatever it gives comes out through a FIFO that
/// starts with `latency` frames of silence, enough to cover the stretcher's look-ahead at
/// any pitch, so every cycle has its frames; the unit reports that latency and the graph
/// aligns other paths with it. A pitch move is handed to the unit's mover thread, which
/// makes it (Rubber Band allocates when its ratio changes) and takes the input written
/// meanwhile, while the FIFO's slack keeps the output flowing; offline, and in an LV2
/// host, the rendering thread makes it itself. Linked to a source, it passes its input
/// through. Thread: audio, or the control side while no program runs it.
struct PitchShiftKernel: UnitKernel {
    let core: UnsafeMutablePointer<PitchShifterCore>
    /// Wakes the mover; nil where pitch moves are always made in place.
    let mover: UnsafeMutablePointer<sem_t>?
    let linked: UnsafePointer<Atomic<Bool>>
    /// The unit's `pitch` and `formants` parameters.
    static let pitchIndex = 1, formantsIndex = 2

    /// Thread: audio or control (asks the owner to restart when the mover has the stretcher).
    mutating func reset() {
        if core.pointee.moving.load(ordering: .acquiring) {
            core.pointee.resetWanted.store(true, ordering: .releasing)
        } else {
            core.pointee.restart()
        }
    }

    /// Thread: any.
    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        switch index {
        case Self.pitchIndex: core.pointee.wantedPitch.store(_exp2(Double(value) / 1200).bitPattern, ordering: .relaxed)
        case Self.formantsIndex: core.pointee.wantedFormants.store(value >= 0.5, ordering: .relaxed)
        default: break
        }
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        let input = context.inputs[0], output = context.outputs[0]
        let frames = context.frameCount
        if linked.pointee.load(ordering: .relaxed) {
            for channel in 0..<min(input.channelCount, output.channelCount) {
                let source = input[channel], destination = output[channel]
                for frame in 0..<frames { destination[frame] = source[frame] }
            }
            return .ok
        }
        let shifter = core
        if shifter.pointee.moving.load(ordering: .acquiring) {
            // The mover restarts the stretcher: nothing in or out until it has.
            if shifter.pointee.resetWanted.load(ordering: .acquiring) {
                output.clear(frameCount: frames)
                return .ok
            }
            shifter.pointee.write(input, frames: frames)
        } else {
            if shifter.pointee.resetWanted.load(ordering: .acquiring) {
                shifter.pointee.restart()
                shifter.pointee.resetWanted.store(false, ordering: .releasing)
            }
            shifter.pointee.write(input, frames: frames)
            if !shifter.pointee.isCurrent {
                if let mover, !shifter.pointee.movesInPlace.load(ordering: .relaxed) {
                    shifter.pointee.moving.store(true, ordering: .releasing)
                    _unsafePerformance { _ = sem_post(mover) }
                } else {
                    shifter.pointee.applyWanted()
                }
            }
            if !shifter.pointee.moving.load(ordering: .acquiring) { shifter.pointee.pump() }
        }
        shifter.pointee.read(into: output, frames: frames)
        return .ok
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
