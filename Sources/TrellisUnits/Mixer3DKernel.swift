import TrellisCore

/// Mixer3D's real-time half: every input's speaker gains, recomputed when a parameter
/// changes and glided to. The tables are in the kernel storage's arena. Thread: audio, or the
/// control side while no program runs it.
struct Mixer3DKernel: UnitKernel {
    /// Global parameters (model, reference, maximum distance, rolloff), then per input.
    static let globalCount = 4
    static let perInput = 5
    static let maximumChannels = 6
    /// Gains per input: one per speaker, then the level a stereo input passes through at.
    static let stride = maximumChannels + 1

    let sampleRate: Double
    let layout: SpeakerLayout
    let inputCount: Int
    /// Gains per input, [input][stride].
    let gains: UnsafeMutablePointer<SmoothedValue>
    /// `maximumChannels` floats to compute a placement in.
    let scratch: UnsafeMutablePointer<Float>
    /// Every parameter value, as the events delivered them.
    let settings: UnsafeMutablePointer<Float>
    var hasRendered = false

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        settings[index] = value
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        if index < Self.globalCount {
            for element in 0..<inputCount { place(element, rampFrames: frames) }
        } else {
            let element = (index - Self.globalCount) / Self.perInput
            if element < inputCount { place(element, rampFrames: frames) }
        }
    }

    /// Recomputes one input's speaker gains from the current parameter values.
    private func place(_ element: Int, rampFrames: Int) {
        let values = settings
        let base = Self.globalCount + element * Self.perInput
        let model = DistanceModel(rawValue: roundedToInt(values[0])) ?? .inverseClamped
        let attenuation = model.gain(distance: values[base + 2], reference: values[1], maximum: values[2], rolloff: values[3])
        let level = values[base + 4] >= 0.5 ? 0 : attenuation * Decibels.gain(values[base + 3])
        layout.gains(azimuth: values[base], elevation: values[base + 1], into: scratch)
        let row = gains + element * Self.stride
        for channel in 0..<layout.channelCount { row[channel].set(scratch[channel] * level, frames: rampFrames) }
        row[Self.maximumChannels].set(level, frames: rampFrames)
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        hasRendered = true
        let frames = context.frameCount
        let output = context.outputs[0]
        let channels = min(layout.channelCount, output.channelCount)
        for channel in 0..<output.channelCount { output[channel].update(repeating: 0, count: frames) }
        let inverse = 1 / Float(max(1, frames))
        // Unconnected inputs all read the graph's one silent buffer: scan it once.
        var knownSilent: UnsafeMutablePointer<Float>?
        for element in 0..<min(inputCount, context.inputs.count) {
            let input = context.inputs[element]
            let row = gains + element * Self.stride
            if input.channelCount == 1 {
                let source = input[0]
                let silent = source == knownSilent || MixKernels.isSilent(source, count: frames)
                if silent { knownSilent = source }
                for channel in 0..<channels {
                    add(silent ? nil : source, to: output[channel], gain: row + channel, frames: frames, inverse: inverse)
                }
                _ = row[Self.maximumChannels].advance(by: frames)
            } else {
                // A stereo input is not placed: left and right pass through at the input's level.
                let level = row[Self.maximumChannels]
                for channel in 0..<min(min(2, input.channelCount), channels) {
                    var gain = level
                    add(input[channel], to: output[channel], gain: &gain, frames: frames, inverse: inverse)
                }
                _ = row[Self.maximumChannels].advance(by: frames)
                for channel in 0..<channels { _ = row[channel].advance(by: frames) }
            }
        }
        return .ok
    }

    /// Adds `source` (nil: silence) to `destination` through a gain gliding over the slice.
    private func add(_ source: UnsafeMutablePointer<Float>?, to destination: UnsafeMutablePointer<Float>,
                     gain: UnsafeMutablePointer<SmoothedValue>, frames: Int, inverse: Float) {
        let start = gain.pointee.current
        let end = gain.pointee.advance(by: frames)
        guard let source else { return }
        if start == end {
            if end != 0 { MixKernels.add(source, to: destination, gain: end, count: frames) }
        } else {
            MixKernels.addRamped(source, to: destination, start: start, step: (end - start) * inverse, count: frames)
        }
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
