import TrellisCore

/// Gain's real-time half: one smoothed gain over every channel. Thread: audio, or the
/// control side while no program runs it.
struct GainKernel: UnitKernel {
    /// The ramp a change takes when it asks for none.
    static let defaultRampFrames = 64

    var gain = SmoothedValue(1)

    /// Heads for `decibels` (-120 and below is silence) over exactly `frames` frames.
    mutating func setGain(decibels: Float, frames: Int) {
        gain.set(decibels <= -120 ? 0 : decibelsToGain(decibels), frames: frames)
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        setGain(decibels: value, frames: rampFrames > 0 ? rampFrames : Self.defaultRampFrames)
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        let input = context.inputs[0], output = context.outputs[0]
        let frames = context.frameCount
        if !gain.isRamping {
            let g = gain.current
            for channel in 0..<output.channelCount {
                let source = input[channel], destination = output[channel]
                for frame in 0..<frames { destination[frame] = source[frame] * g }
            }
            return .ok
        }
        var ramp = gain
        for channel in 0..<output.channelCount {
            ramp = gain
            let source = input[channel], destination = output[channel]
            for frame in 0..<frames { destination[frame] = source[frame] * ramp.next() }
        }
        gain = ramp
        return .ok
    }
}

extension GainKernel {
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
