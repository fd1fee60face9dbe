import TrellisCore

/// DynamicsProcessor's real-time half: a feed-forward compressor and expander. The key
/// (the input, or the side-chain bus) is measured sample by sample as a peak level in
/// dB, the static curve gives the reduction it asks for, and the reduction is smoothed
/// in dB with the attack time while it grows and the release time while it shrinks, so
/// each reaches 63 % of a step in its time constant. Linked, one reduction follows the
/// loudest channel and applies to all; unlinked, each channel has its own. The unit
/// allocates `envelopes` (one a channel) and frees it. Thread: audio, or the control
/// side while no program runs it.
struct DynamicsProcessorKernel: UnitKernel {
    let sampleRate: Double
    let channels: Int
    /// The smoothed reduction in dB of each channel (only the first when linked).
    let envelopes: UnsafeMutablePointer<Double>
    /// Where the meters go.
    let values: ParameterValues
    var curve = DynamicsCurve(threshold: -20, ratio: 4, kneeWidth: 0, expansionThreshold: -100, expansionRatio: 2)
    var threshold: Double = -20
    var headRoom: Double = 5
    var explicitRatio: Double = 0
    var attackFactor = 0.0
    var releaseFactor = 0.0
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
    static func factor(seconds: Double, sampleRate: Double) -> Double {
        _exp(-1 / (max(seconds, 1e-6) * sampleRate))
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
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        outputGain.set(Float(exp10Double((overallGain + makeupGain) / 20)), frames: frames)
    }

    /// dB of a peak amplitude, floored at −200 dB.
    @inline(__always)
    static func level(_ amplitude: Float) -> Double {
        amplitude > 1e-10 ? 6.020599913279624 * _log2(Double(amplitude)) : -200
    }

    @inline(__always)
    mutating func smooth(_ envelope: Double, toward target: Double) -> Double {
        let factor = target > envelope ? attackFactor : releaseFactor
        return target + factor * (envelope - target)
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        hasRendered = true
        let input = context.inputs[0], output = context.outputs[0]
        let count = min(channels, min(input.channelCount, output.channelCount))
        let key = sidechain && context.inputs.count > 1 ? context.inputs[1] : input
        let keyCount = key.channelCount
        var inputPeak: Float = 0, outputPeak: Float = 0, deepest = 0.0
        for frame in 0..<context.frameCount {
            let gain = outputGain.next()
            if linked {
                var peak: Float = 0
                for channel in 0..<count { inputPeak = max(inputPeak, input[channel][frame].magnitude) }
                for channel in 0..<keyCount { peak = max(peak, key[channel][frame].magnitude) }
                let envelope = smooth(envelopes[0], toward: curve.reduction(Self.level(peak)))
                envelopes[0] = envelope
                deepest = max(deepest, envelope)
                let applied = Float(_exp2(-envelope / 6.020599913279624)) * gain
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
                    let envelope = smooth(envelopes[channel], toward: curve.reduction(Self.level(k.magnitude)))
                    envelopes[channel] = envelope
                    deepest = max(deepest, envelope)
                    let y = x * Float(_exp2(-envelope / 6.020599913279624)) * gain
                    output[channel][frame] = y
                    outputPeak = max(outputPeak, y.magnitude)
                }
            }
        }
        values[Index.compressionAmount] = max(Decibels.floor, Float(-deepest))
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
