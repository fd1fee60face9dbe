import TrellisCore

/// Mixer3D's real-time half: every input's speaker gains, recomputed when a parameter
/// changes and glided to. The unit allocates and frees the tables. Thread: audio, or the
/// control side while no program runs it.
struct Mixer3DKernel: UnitKernel {
    /// Global parameters (model, reference, maximum distance, rolloff), then per input.
    static let globalCount = 4
    static let perInput = 5
    static let maximumChannels = 6

    let sampleRate: Double
    let layout: SpeakerLayout
    let inputCount: Int
    /// Speaker gains per input, [input][maximumChannels].
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
        for channel in 0..<layout.channelCount {
            gains[element * Self.maximumChannels + channel].set(scratch[channel] * level, frames: rampFrames)
        }
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
            let source = context.inputs[element][0]
            let silent = source == knownSilent || MixKernels.isSilent(source, count: frames)
            if silent { knownSilent = source }
            for channel in 0..<channels {
                let gain = gains + element * Self.maximumChannels + channel
                let start = gain.pointee.current
                let end = gain.pointee.advance(by: frames)
                if silent { continue }
                if start == end {
                    if end != 0 { MixKernels.add(source, to: output[channel], gain: end, count: frames) }
                } else {
                    MixKernels.addRamped(source, to: output[channel], start: start, step: (end - start) * inverse, count: frames)
                }
            }
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
