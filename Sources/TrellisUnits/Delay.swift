import Glibc
import TrellisCore

/// A feedback delay: delay time, feedback through a one-pole low-pass in the loop, and
/// a wet/dry mix. Parameter ids follow `AUDelay`.
///
/// A change of delay time glides the read position (at most half a sample per sample,
/// so the pitch bends instead of the output jumping); fractional delays read by linear
/// interpolation.
public final class Delay: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.delay, manufacturer: Manufacturer.trellis)
    public static let maximumDelaySeconds: Float = 2

    private var lines: UnsafeMutablePointer<Float>?
    private var lowPassStates: UnsafeMutablePointer<Float>?
    private var ringSize = 1
    private var position = 0
    private var channels = 0
    private var delayFrames = SmoothedValue(1)
    private var feedback = SmoothedValue(0.5)
    private var mix = SmoothedValue(0.5)
    private var cutoff = SmoothedValue(15_000)
    private var hasRendered = false

    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "delay", inputs: [2], outputs: [2])
        declareParameter(ParameterInfo(address: ParameterAddress(0), identifier: "mix", name: "Dry/Wet Mix",
                                       unit: .percent, range: 0...100, defaultValue: 50, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(1), identifier: "time", name: "Delay Time",
                                       unit: .seconds, range: 0...Self.maximumDelaySeconds, defaultValue: 1, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(2), identifier: "feedback", name: "Feedback",
                                       unit: .percent, range: -99.9...99.9, defaultValue: 50, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(3), identifier: "lowpass", name: "Low-pass Cutoff",
                                       unit: .hertz, range: 10...22_050, defaultValue: 15_000, flags: [.readable, .writable, .logarithmic, .ramped]))
    }

    public override var tailTime: Double {
        // Time for the echoes to fall 60 dB at the current feedback.
        let gain = Double(abs(values[2]) / 100), time = Double(values[1])
        return gain <= 0 ? time : time * (1 + 3 / max(1e-3, -log10(gain)))
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        channels = try matchingChannelCount()
        ringSize = 1
        while ringSize < Int(Double(Self.maximumDelaySeconds) * sampleRate) + 4 { ringSize <<= 1 }
        lines = .allocate(capacity: ringSize * channels)
        lowPassStates = .allocate(capacity: channels)
        hasRendered = false
        reset()
    }

    public override func deallocateRenderResources() {
        lines?.deallocate()
        lines = nil
        lowPassStates?.deallocate()
        lowPassStates = nil
    }

    public override func reset() {
        lines?.update(repeating: 0, count: ringSize * channels)
        lowPassStates?.update(repeating: 0, count: channels)
        position = 0
    }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        guard lines != nil else { return }
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        switch index {
        case 0: mix.set(value / 100, frames: frames)
        case 1:
            let target = max(1, value * Float(sampleRate))
            let glide = frames == 0 ? 0 : max(frames, Int(2 * abs(target - delayFrames.current)))
            delayFrames.set(target, frames: glide)
        case 2: feedback.set(value / 100, frames: frames)
        case 3: cutoff.set(value, frames: frames)
        default: break
        }
    }

    public override func render(_ context: RenderContext) -> RenderStatus {
        guard let lines, let lowPassStates else { return .notInitialized }
        hasRendered = true
        let input = context.inputs[0], output = context.outputs[0]
        let channelCount = min(channels, input.channelCount, output.channelCount)
        let frames = context.frameCount
        let startPosition = position
        let mask = ringSize - 1
        let fc = cutoff.advance(by: frames)
        let coefficient = 1 - expf(-2 * Float.pi * min(fc, 0.49 * Float(sampleRate)) / Float(sampleRate))
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
    private func renderSteady(input: AudioBuffers, output: AudioBuffers, channels: Int, frames: Int, coefficient: Float) {
        guard let lines, let lowPassStates else { return }
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
}
