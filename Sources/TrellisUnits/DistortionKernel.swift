import TrellisCore

/// Distortion's real-time half. Each channel is raised to 8× its rate (`Oversampler`),
/// shaped there (`DistortionShaper`), brought down again, tilted by the tone control and
/// mixed with the dry input, which waits in a delay line as long as the oversampler takes,
/// so the two stay aligned. `oversamplers`, `shapers`, `dryLines` and `tiltStates` (one of
/// each a channel) come from the kernel storage's arena. Thread: audio, or the control
/// side while no program runs it.
struct DistortionKernel: UnitKernel {
    let sampleRate: Double
    let channels: Int
    let oversamplers: UnsafeMutablePointer<Oversampler>
    let shapers: UnsafeMutablePointer<DistortionShaper>
    /// `channels` rings of `dryRing` frames.
    let dryLines: UnsafeMutablePointer<Float>
    let dryRing: Int
    /// The tone control's low-pass state, per channel.
    let tiltStates: UnsafeMutablePointer<Float>
    /// Eight fast samples.
    let fast: UnsafeMutablePointer<Float>
    var position = 0
    var curve = DistortionCurve.softClip
    var drive: Float = 0.5
    var tone: Float = 0
    var tiltPole: Float = 0
    var lowGain: Float = 1
    var highGain: Float = 1
    var mix = SmoothedValue(0.5)
    var preGain = SmoothedValue(0.5)
    var outputGain = SmoothedValue(1)
    var hasRendered = false

    enum Index {
        static let wetDryMix = 0, preGain = 1, drive = 2, curve = 3, tone = 4, outputGain = 5
    }

    /// The tone control pivots at this frequency.
    static let tiltHertz = 800.0

    mutating func reset() {
        for channel in 0..<channels {
            oversamplers[channel].reset()
            shapers[channel].heldFor = 0
        }
        dryLines.update(repeating: 0, count: channels * dryRing)
        tiltStates.update(repeating: 0, count: channels)
        position = 0
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        switch index {
        case Index.wetDryMix: mix.set(value / 100, frames: frames)
        case Index.preGain: preGain.set(Decibels.gain(value), frames: frames)
        case Index.outputGain: outputGain.set(Decibels.gain(value), frames: frames)
        case Index.drive: drive = value / 100
        case Index.curve: curve = DistortionCurve(rawValue: min(5, max(0, roundedToInt(value)))) ?? .softClip
        case Index.tone:
            tone = value / 100
            lowGain = Decibels.gain(-6 * tone)
            highGain = Decibels.gain(6 * tone)
        default: return
        }
        for channel in 0..<channels { shapers[channel].set(curve: curve, drive: drive) }
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        hasRendered = true
        let input = context.inputs[0], output = context.outputs[0]
        let count = min(channels, min(input.channelCount, output.channelCount))
        let latency = Oversampler.latency, mask = dryRing - 1
        let pole = Float(_exp(-2 * Double.pi * Self.tiltHertz / sampleRate))
        let tilted = tone != 0
        for frame in 0..<context.frameCount {
            let wet = mix.next(), pre = preGain.next(), post = outputGain.next()
            for channel in 0..<count {
                let x = input[channel][frame]
                let ring = dryLines + channel * dryRing
                ring[position & mask] = x
                let dry = ring[(position - latency) & mask]
                oversamplers[channel].up(x * pre, into: fast)
                for index in 0..<Oversampler.factor { fast[index] = shapers[channel].shape(fast[index]) }
                var shaped = oversamplers[channel].down(fast)
                if tilted {
                    let low = (1 - pole) * shaped + pole * tiltStates[channel]
                    tiltStates[channel] = low
                    shaped = low * lowGain + (shaped - low) * highGain
                }
                output[channel][frame] = (dry * (1 - wet) + shaped * wet) * post
            }
            position &+= 1
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
