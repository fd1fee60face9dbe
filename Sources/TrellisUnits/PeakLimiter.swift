import Glibc
import TrellisCore

/// A look-ahead brick-wall peak limiter.
///
/// The gain each sample needs (ceiling / peak across channels) recovers at the release
/// rate, is held at its minimum over the look-ahead window and smoothed by a moving
/// average over the same window, then applied to the input delayed by that window. The
/// average of values that all lie at or below the needed gain cannot exceed it, so peaks
/// are caught before they arrive and the output stays under the ceiling; a final clamp
/// catches float rounding. The attack (the look-ahead) is the latency; it is read when
/// the unit initializes. Parameter ids follow `AUPeakLimiter` where it has them.
public final class PeakLimiter: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.peakLimiter, manufacturer: Manufacturer.trellis)

    private var lookahead = 0
    private var delayLines: UnsafeMutablePointer<Float>?
    private var ringSize = 1
    private var position = 0
    private var channels = 0
    private var minimum = SlidingMinimum(window: 1)
    private var boxValues: UnsafeMutablePointer<Float>?
    private var boxPosition = 0
    private var boxSum: Double = 0
    private var envelope: Float = 1
    private var releaseFactor: Float = 0.999
    private var ceiling = SmoothedValue(1)
    private var preGain = SmoothedValue(1)
    private var hasRendered = false

    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "limiter", inputs: [2], outputs: [2])
        declareParameter(ParameterInfo(address: ParameterAddress(0), identifier: "attack", name: "Attack (Look-ahead)",
                                       unit: .milliseconds, range: 0.1...25, defaultValue: 5))
        declareParameter(ParameterInfo(address: ParameterAddress(1), identifier: "release", name: "Release",
                                       unit: .milliseconds, range: 1...2000, defaultValue: 100, flags: [.readable, .writable, .logarithmic]))
        declareParameter(ParameterInfo(address: ParameterAddress(2), identifier: "pregain", name: "Pre-Gain",
                                       unit: .decibels, range: -40...40, defaultValue: 0, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(3), identifier: "ceiling", name: "Ceiling",
                                       unit: .decibels, range: -60...0, defaultValue: -1, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(4), identifier: "reduction", name: "Gain Reduction",
                                       unit: .decibels, range: -160...0, defaultValue: 0, flags: .meter))
    }

    public override var latencyFrames: Int { lookahead }

    public override var tailTime: Double { Double(lookahead) / sampleRate }

    public override func allocateRenderResources() throws(AudioUnitError) {
        channels = try matchingChannelCount()
        lookahead = max(1, Int((Double(values[0]) / 1000 * sampleRate).rounded()))
        ringSize = 1
        while ringSize < lookahead + 1 { ringSize <<= 1 }
        delayLines = .allocate(capacity: ringSize * channels)
        minimum = SlidingMinimum(window: lookahead + 1)
        boxValues = .allocate(capacity: lookahead + 1)
        hasRendered = false
        reset()
    }

    public override func deallocateRenderResources() {
        delayLines?.deallocate()
        delayLines = nil
        boxValues?.deallocate()
        boxValues = nil
        minimum.deallocate()
        minimum = SlidingMinimum(window: 1)
        lookahead = 0
    }

    public override func reset() {
        guard let delayLines, let boxValues else { return }
        delayLines.update(repeating: 0, count: ringSize * channels)
        boxValues.update(repeating: 1, count: lookahead + 1)
        boxSum = Double(lookahead + 1)
        boxPosition = 0
        position = 0
        envelope = 1
        minimum.reset()
    }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        guard delayLines != nil else { return }
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        switch index {
        case 1: releaseFactor = Float(exp(-1 / (Double(value) / 1000 * sampleRate)))
        case 2: preGain.set(Decibels.gain(value), frames: frames)
        case 3: ceiling.set(Decibels.gain(value), frames: frames)
        default: break
        }
    }

    public override func render(_ context: RenderContext) -> RenderStatus {
        guard let delayLines, let boxValues else { return .notInitialized }
        hasRendered = true
        let input = context.inputs[0], output = context.outputs[0]
        let channelCount = min(channels, input.channelCount, output.channelCount)
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
                peak = max(peak, abs(x))
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
        publishOutputValue(index: 4, Decibels.fromAmplitude(deepest))
        return .ok
    }
}
