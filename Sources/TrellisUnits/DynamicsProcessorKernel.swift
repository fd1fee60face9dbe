import TrellisCore

/// DynamicsProcessor's real-time half: a feed-forward compressor and expander. The key
/// (the input, or the side-chain bus) is measured sample by sample as a peak level in
/// dB, the static curve gives the reduction it asks for, and the reduction is smoothed
/// in dB with the attack time while it grows and the release time while it shrinks, so
/// each reaches 63 % of a step in its time constant. Linked, one reduction follows the
/// loudest channel and applies to all; unlinked, each channel has its own. `envelopes`
/// (one a channel) come from the kernel storage's arena. Thread: audio, or the control
/// side while no program runs it.
struct DynamicsProcessorKernel: UnitKernel {
    let sampleRate: Double
    let channels: Int
    /// The smoothed reduction in dB of each channel (only the first when linked).
    let envelopes: UnsafeMutablePointer<Float>
    /// A cycle's target reductions: `maximumFramesPerSlice` floats.
    let work: UnsafeMutablePointer<Float>
    /// Where the meters go.
    let values: ParameterValues
    var curve = DynamicsCurve(threshold: -20, ratio: 4, kneeWidth: 0, expansionThreshold: -100, expansionRatio: 2)
    var threshold: Double = -20
    var headRoom: Double = 5
    var explicitRatio: Double = 0
    var attackFactor: Float = 0
    var releaseFactor: Float = 0
    /// The curve in single precision, for the audio thread.
    var fast = FastCurve()
    /// Peaks between these amplitudes need no reduction (below the knee, above the expander).
    var quietFloor: Float = 0
    var quietCeiling: Float = 0
    var overallGain: Double = 0
    var makeupGain: Double = 0
    var outputGain = SmoothedValue(1)
    var sidechain = false
    var linked = true
    var hasRendered = false

    enum Index {
        static let threshold = 0, headRoom = 1, expansionRatio = 2, expansionThreshold = 3
        static let attackTime = 4, releaseTime = 5, overallGain = 6
        static let ratio = 7, kneeWidth = 8, makeupGain = 9, sidechain = 10, stereoLink = 11
        static let compressionAmount = 12, inputAmplitude = 13, outputAmplitude = 14
    }

    mutating func reset() {
        envelopes.update(repeating: 0, count: channels)
    }

    /// The smoothing factor that reaches 63 % of a step in `seconds`.
    static func factor(seconds: Double, sampleRate: Double) -> Float {
        Float(_exp(-1 / (max(seconds, 1e-6) * sampleRate)))
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        let value = Double(value)
        switch index {
        case Index.threshold: threshold = value
        case Index.headRoom: headRoom = value
        case Index.ratio: explicitRatio = value
        case Index.kneeWidth: curve.kneeWidth = value
        case Index.expansionRatio: curve.expansionRatio = value
        case Index.expansionThreshold: curve.expansionThreshold = value
        case Index.attackTime: attackFactor = Self.factor(seconds: value, sampleRate: sampleRate)
        case Index.releaseTime: releaseFactor = Self.factor(seconds: value, sampleRate: sampleRate)
        case Index.overallGain: overallGain = value
        case Index.makeupGain: makeupGain = value
        case Index.sidechain: sidechain = value >= 0.5
        case Index.stereoLink: linked = value >= 0.5
        default: return
        }
        curve.threshold = threshold
        curve.ratio = explicitRatio >= 1 ? explicitRatio : DynamicsCurve.ratio(threshold: threshold, headRoom: headRoom)
        fast = FastCurve(curve)
        quietCeiling = Float(exp10Double((curve.threshold - curve.kneeWidth / 2) / 20))
        quietFloor = curve.expansionRatio > 1 ? Float(exp10Double(curve.expansionThreshold / 20)) : 0
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        outputGain.set(Float(exp10Double((overallGain + makeupGain) / 20)), frames: frames)
    }

    /// The reduction a peak amplitude asks for, in octaves of amplitude (6.02 dB): none
    /// between `quietFloor` and `quietCeiling`, without a logarithm; else the curve's,
    /// the level floored at −200 dB.
    @inline(__always)
    func target(_ amplitude: Float) -> Float {
        if amplitude <= quietCeiling && amplitude >= quietFloor { return 0 }
        return fast.reduction(amplitude > 1e-10 ? FastMath.log2(amplitude) : -33.2)
    }

    /// One step of the smoothed reduction from `previous` toward `target`, before it
    /// settles (`settled`).
    @inline(__always)
    func smooth(_ previous: Float, toward target: Float) -> Float {
        Self.smooth(previous, toward: target, attack: attackFactor, release: releaseFactor)
    }

    /// Settles `previous` first, and both steps are worked out and one is kept, so the
    /// path from one frame's reduction to the next is a multiply, an add and a select.
    @inline(__always)
    static func smooth(_ previous: Float, toward target: Float, attack: Float, release: Float) -> Float {
        let keep = previous >= 2e-6
        let attacked = (keep ? attack * previous : 0) + (1 - attack) * target
        let released = (keep ? release * previous : 0) + (1 - release) * target
        return target > (keep ? previous : 0) ? attacked : released
    }

    /// Below 2e-6 (1e-5 dB) the reduction settles at 0, so the gain stays exact and needs
    /// no exponential.
    @inline(__always)
    static func settled(_ reduction: Float) -> Float {
        reduction >= 2e-6 ? reduction : 0
    }

    @inline(__always)
    static func settled(_ reductions: SIMD4<Float>) -> SIMD4<Float> {
        SIMD4(repeating: 0).replacing(with: reductions, where: reductions .>= 2e-6)
    }

    @inline(__always)
    static func gain(reduction: Float) -> Float {
        reduction == 0 ? 1 : FastMath.exp2(-reduction)
    }

    @inline(__always)
    static func gains(reductions: SIMD4<Float>) -> SIMD4<Float> {
        FastMath.exp2(-reductions).replacing(with: 1, where: reductions .== 0)
    }

    @inline(__always)
    static func magnitude(_ x: SIMD4<Float>) -> SIMD4<Float> {
        unsafeBitCast(unsafeBitCast(x, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: SIMD4<Float>.self)
    }

    /// Octaves of amplitude to dB.
    static var decibelsPerOctave: Float { 6.0205999 }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        hasRendered = true
        let input = context.inputs[0], output = context.outputs[0]
        let count = min(channels, min(input.channelCount, output.channelCount))
        let key = sidechain && context.inputs.count > 1 ? context.inputs[1] : input
        let keyCount = key.channelCount
        var inputPeak: Float = 0, outputPeak: Float = 0, deepest: Float = 0
        if linked && count == 2 && keyCount > 0 {
            // The usual case, stereo and linked, in two passes: the reductions the key
            // asks for, free of branches (so the compiler can use vector instructions);
            // then, four frames at a time, the smoothing frame by frame and the gains and
            // outputs as vectors, which fill the time the smoothing's chain of dependent
            // steps leaves idle.
            let frames = context.frameCount
            let left = input[0], right = input[1], outLeft = output[0], outRight = output[1]
            let keyLeft = key[0], keyRight = key[keyCount > 1 ? 1 : 0]
            let curve = fast, floor = quietFloor, ceiling = quietCeiling, work = work
            for frame in 0..<frames {
                let peak = FastMath.larger(keyLeft[frame].magnitude, keyRight[frame].magnitude)
                let reduction = curve.reductionWithoutBranches(FastMath.log2(FastMath.larger(peak, 1e-10)))
                work[frame] = peak <= ceiling && peak >= floor ? 0 : reduction
            }
            let attack = attackFactor, release = releaseFactor
            var envelope = envelopes[0], makeup = outputGain
            var deepests = SIMD4<Float>(), inputPeaks = SIMD4<Float>(), outputPeaks = SIMD4<Float>()
            var frame = 0
            while frame + 4 <= frames {
                let first = Self.smooth(envelope, toward: work[frame], attack: attack, release: release)
                let second = Self.smooth(first, toward: work[frame + 1], attack: attack, release: release)
                let third = Self.smooth(second, toward: work[frame + 2], attack: attack, release: release)
                envelope = Self.smooth(third, toward: work[frame + 3], attack: attack, release: release)
                let reductions = Self.settled(SIMD4(first, second, third, envelope))
                let makeups = makeup.isRamping ? SIMD4(makeup.next(), makeup.next(), makeup.next(), makeup.next()) : SIMD4(repeating: makeup.current)
                let gains = Self.gains(reductions: reductions) * makeups
                let a = SIMDSamples.load(left + frame), b = SIMDSamples.load(right + frame)
                SIMDSamples.store(a * gains, to: outLeft + frame)
                SIMDSamples.store(b * gains, to: outRight + frame)
                // The gains are positive, so the louder input sample makes the louder output.
                let louder = FastMath.maximum(Self.magnitude(a), Self.magnitude(b))
                deepests = FastMath.maximum(deepests, reductions)
                inputPeaks = FastMath.maximum(inputPeaks, louder)
                outputPeaks = FastMath.maximum(outputPeaks, louder * gains)
                frame += 4
            }
            deepest = deepests.max()
            inputPeak = inputPeaks.max()
            outputPeak = outputPeaks.max()
            while frame < frames {
                envelope = Self.smooth(envelope, toward: work[frame], attack: attack, release: release)
                let reduction = Self.settled(envelope)
                deepest = max(deepest, reduction)
                let gain = Self.gain(reduction: reduction) * makeup.next()
                let a = left[frame], b = right[frame]
                inputPeak = max(inputPeak, max(a.magnitude, b.magnitude))
                let x = a * gain, y = b * gain
                outLeft[frame] = x
                outRight[frame] = y
                outputPeak = max(outputPeak, max(x.magnitude, y.magnitude))
                frame += 1
            }
            envelopes[0] = Self.settled(envelope)
            outputGain = makeup
            values[Index.compressionAmount] = max(Decibels.floor, -deepest * Self.decibelsPerOctave)
            values[Index.inputAmplitude] = Decibels.fromAmplitude(inputPeak)
            values[Index.outputAmplitude] = Decibels.fromAmplitude(outputPeak)
            return .ok
        }
        for frame in 0..<context.frameCount {
            let gain = outputGain.next()
            if linked {
                var peak: Float = 0
                for channel in 0..<count { inputPeak = max(inputPeak, input[channel][frame].magnitude) }
                for channel in 0..<keyCount { peak = max(peak, key[channel][frame].magnitude) }
                let envelope = Self.settled(smooth(envelopes[0], toward: target(peak)))
                envelopes[0] = envelope
                deepest = max(deepest, envelope)
                let applied = Self.gain(reduction: envelope) * gain
                for channel in 0..<count {
                    let y = input[channel][frame] * applied
                    output[channel][frame] = y
                    outputPeak = max(outputPeak, y.magnitude)
                }
            } else {
                for channel in 0..<count {
                    let x = input[channel][frame]
                    inputPeak = max(inputPeak, x.magnitude)
                    let k = keyCount > 0 ? key[min(channel, keyCount - 1)][frame] : 0
                    let envelope = Self.settled(smooth(envelopes[channel], toward: target(k.magnitude)))
                    envelopes[channel] = envelope
                    deepest = max(deepest, envelope)
                    let y = x * Self.gain(reduction: envelope) * gain
                    output[channel][frame] = y
                    outputPeak = max(outputPeak, y.magnitude)
                }
            }
        }
        values[Index.compressionAmount] = max(Decibels.floor, -deepest * Self.decibelsPerOctave)
        values[Index.inputAmplitude] = Decibels.fromAmplitude(inputPeak)
        values[Index.outputAmplitude] = Decibels.fromAmplitude(outputPeak)
        return .ok
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}

/// `DynamicsCurve` in single precision and in octaves of amplitude (dB / 6.02: the level
/// is log2 of the peak), its constants worked out once. Thread: any.
struct FastCurve {
    var threshold: Float = -20
    var slope: Float = -0.75
    var inverseRatio: Float = 0.25
    var kneeWidth: Float = 0
    var halfKnee: Float = 0
    var inverseTwoKnee: Float = 0
    var expansionThreshold: Float = -100
    var expansionSlope: Float = 1

    init() {}

    init(_ curve: DynamicsCurve) {
        let octave = 6.020599913279624
        threshold = Float(curve.threshold / octave)
        inverseRatio = Float(1 / curve.ratio)
        slope = inverseRatio - 1
        kneeWidth = Float(curve.kneeWidth / octave)
        halfKnee = kneeWidth / 2
        inverseTwoKnee = kneeWidth > 0 ? 1 / (2 * kneeWidth) : 0
        expansionThreshold = Float(curve.expansionThreshold / octave)
        expansionSlope = Float(curve.expansionRatio - 1)
    }

    /// As `reduction`, without branches: the knee's quadratic of the level clamped to the
    /// knee, plus the straight line past it.
    @inline(__always)
    func reductionWithoutBranches(_ level: Float) -> Float {
        let over = level - threshold
        let into = FastMath.smaller(FastMath.larger(over, -halfKnee), halfKnee) + halfKnee
        var reduction = -slope * (into * into * inverseTwoKnee + FastMath.larger(over - halfKnee, 0))
        reduction += FastMath.larger(expansionThreshold - level, 0) * expansionSlope
        return FastMath.larger(reduction, 0)
    }

    /// As `DynamicsCurve.reduction`, in octaves for a level in octaves.
    @inline(__always)
    func reduction(_ level: Float) -> Float {
        let over = level - threshold
        var reduction: Float = 0
        if over > halfKnee {
            reduction = -slope * over
        } else if kneeWidth > 0, over >= -halfKnee {
            let into = over + halfKnee
            reduction = -slope * into * into * inverseTwoKnee
        }
        if level < expansionThreshold { reduction += (expansionThreshold - level) * expansionSlope }
        return max(0, reduction)
    }
}
