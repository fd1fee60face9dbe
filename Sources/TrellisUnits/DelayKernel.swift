import TrellisCore

/// Delay's real-time half. The delay lines and the low-pass states come from the kernel
/// storage's arena. Thread: audio, or the control side while no program runs it.
struct DelayKernel: UnitKernel {
    let sampleRate: Double
    let channels: Int
    /// `channels` rings of `ringSize` (a power of two) frames.
    let lines: UnsafeMutablePointer<Float>
    let ringSize: Int
    /// The feedback low-pass's state, one per channel.
    let lowPassStates: UnsafeMutablePointer<Float>
    var position = 0
    var delayFrames = SmoothedValue(1)
    var feedback = SmoothedValue(0.5)
    var mix = SmoothedValue(0.5)
    var cutoff = SmoothedValue(15_000)
    var hasRendered = false

    mutating func reset() {
        lines.update(repeating: 0, count: ringSize * channels)
        lowPassStates.update(repeating: 0, count: channels)
        position = 0
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        switch index {
        case 0: mix.set(value / 100, frames: frames)
        case 1:
            let target = max(1, value * Float(sampleRate))
            let glide = frames == 0 ? 0 : max(frames, Int(2 * (target - delayFrames.current).magnitude))
            delayFrames.set(target, frames: glide)
        case 2: feedback.set(value / 100, frames: frames)
        case 3: cutoff.set(value, frames: frames)
        default: break
        }
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        hasRendered = true
        let input = context.inputs[0], output = context.outputs[0]
        let channelCount = min(channels, min(input.channelCount, output.channelCount))
        let frames = context.frameCount
        let startPosition = position
        let mask = ringSize - 1
        let fc = cutoff.advance(by: frames)
        let coefficient = 1 - _exp(-2 * Float.pi * min(fc, 0.49 * Float(sampleRate)) / Float(sampleRate))
        // The smoothed values advance once per frame for all channels, so each channel
        // replays the same ramps from copies.
        let (timeStart, feedbackStart, mixStart) = (delayFrames, feedback, mix)
        if !delayFrames.isRamping && !feedback.isRamping && !mix.isRamping {
            renderSteady(input: input, output: output, channels: channelCount, frames: frames, coefficient: coefficient)
            return .ok
        }
        for channel in 0..<channelCount {
            var time = timeStart, gain = feedbackStart, blend = mixStart
            let line = lines + channel * ringSize
            let source = input[channel], destination = output[channel]
            var state = lowPassStates[channel]
            var write = startPosition
            for frame in 0..<frames {
                let delay = time.next()
                let whole = Int(delay)
                let fraction = delay - Float(whole)
                let newer = line[(write - whole) & mask], older = line[(write - whole - 1) & mask]
                let delayed = newer + fraction * (older - newer)
                state += coefficient * (delayed - state)
                let x = source[frame]
                line[write] = x + gain.next() * state
                let wet = blend.next()
                destination[frame] = x + wet * (delayed - x)
                write = (write + 1) & mask
            }
            lowPassStates[channel] = state
            if channel == channelCount - 1 { (delayFrames, feedback, mix, position) = (time, gain, blend, write) }
        }
        return .ok
    }

    /// The loop without ramps: constant delay, feedback and mix.
    private mutating func renderSteady(input: AudioBuffers, output: AudioBuffers, channels: Int, frames: Int, coefficient: Float) {
        let mask = ringSize - 1
        let delay = delayFrames.current, gain = feedback.current, wet = mix.current
        let whole = Int(delay)
        let fraction = delay - Float(whole)
        var write = position
        for channel in 0..<channels {
            let line = lines + channel * ringSize
            let source = input[channel], destination = output[channel]
            var state = lowPassStates[channel]
            write = position
            for frame in 0..<frames {
                let newer = line[(write - whole) & mask], older = line[(write - whole - 1) & mask]
                let delayed = newer + fraction * (older - newer)
                state += coefficient * (delayed - state)
                let x = source[frame]
                line[write] = x + gain * state
                destination[frame] = x + wet * (delayed - x)
                write = (write + 1) & mask
            }
            lowPassStates[channel] = state
        }
        position = write
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
