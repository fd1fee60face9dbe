import TrellisCore

/// PeakLimiter's real-time half. The delay lines, the moving average's window and the
/// sliding minimum come from the kernel storage's arena. Thread: audio, or the
/// control side while no program runs it.
struct PeakLimiterKernel: UnitKernel {
    let sampleRate: Double
    let channels: Int
    /// The look-ahead in frames, which the attack sets: 1 to `longest`.
    var lookahead: Int
    let longest: Int
    /// `channels` rings of `ringSize` (a power of two) frames.
    let delayLines: UnsafeMutablePointer<Float>
    let ringSize: Int
    /// The moving average's last `lookahead + 1` values (room for `longest + 1`).
    let boxValues: UnsafeMutablePointer<Float>
    var minimum: SlidingMinimum
    /// Where the gain-reduction meter goes (parameter 4).
    let values: ParameterValues
    var position = 0
    var boxPosition = 0
    var boxSum: Double = 0
    var envelope: Float = 1
    var releaseFactor: Float = 0.999
    var ceiling = SmoothedValue(1)
    var preGain = SmoothedValue(1)
    var hasRendered = false

    mutating func reset() {
        delayLines.update(repeating: 0, count: ringSize * channels)
        boxValues.update(repeating: 1, count: lookahead + 1)
        boxSum = Double(lookahead + 1)
        boxPosition = 0
        position = 0
        envelope = 1
        minimum.reset()
    }

    /// Frames of look-ahead for an attack of `milliseconds`, at least one (rounded half
    /// up: the frames are never negative, and `rounded()` is not for the audio thread).
    static func lookahead(milliseconds: Float, sampleRate: Double) -> Int {
        max(1, Int(Double(milliseconds) / 1000 * sampleRate + 0.5))
    }

    /// A new look-ahead: the output jumps by the difference, as any latency change
    /// does. The gain held so far carries over, so no peak escapes while the window
    /// fills again.
    mutating func retune(lookahead frames: Int) {
        let frames = min(max(1, frames), longest)
        guard frames != lookahead else { return }
        lookahead = frames
        let held = min(envelope, Float(boxSum / Double(minimum.window)))
        boxValues.update(repeating: held, count: frames + 1)
        boxSum = Double(held) * Double(frames + 1)
        boxPosition = 0
        minimum.resize(window: frames + 1)
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        switch index {
        case 0: retune(lookahead: Self.lookahead(milliseconds: value, sampleRate: sampleRate))
        case 1: releaseFactor = Float(_exp(-1 / (Double(value) / 1000 * sampleRate)))
        case 2: preGain.set(Decibels.gain(value), frames: frames)
        case 3: ceiling.set(Decibels.gain(value), frames: frames)
        default: break
        }
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        hasRendered = true
        let input = context.inputs[0], output = context.outputs[0]
        let channelCount = min(channels, min(input.channelCount, output.channelCount))
        let mask = ringSize - 1
        let window = lookahead + 1
        let inverseWindow = 1 / Double(window)
        var deepest: Float = 1
        for frame in 0..<context.frameCount {
            let gain = preGain.next()
            let limit = ceiling.next()
            var peak: Float = 0
            for channel in 0..<channelCount {
                let x = input[channel][frame] * gain
                delayLines[channel * ringSize + position] = x
                peak = max(peak, x.magnitude)
            }
            let needed = peak > limit ? limit / peak : 1
            envelope = min(needed, 1 - (1 - envelope) * releaseFactor)
            let held = minimum.push(envelope)
            boxSum += Double(held) - Double(boxValues[boxPosition])
            boxValues[boxPosition] = held
            boxPosition = boxPosition + 1 == window ? 0 : boxPosition + 1
            let smoothed = Float(boxSum * inverseWindow)
            deepest = min(deepest, smoothed)
            let readPosition = (position - lookahead) & mask
            for channel in 0..<channelCount {
                let y = delayLines[channel * ringSize + readPosition] * smoothed
                output[channel][frame] = min(limit, max(-limit, y))
            }
            position = (position + 1) & mask
        }
        values[4] = Decibels.fromAmplitude(deepest)
        return .ok
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
