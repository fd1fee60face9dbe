import TrellisCore

/// A look-ahead brick-wall peak limiter.
///
/// The gain each sample needs (ceiling / peak across channels) recovers at the release
/// rate, is held at its minimum over the look-ahead window and smoothed by a moving
/// average over the same window, then applied to the input delayed by that window. The
/// average of values that all lie at or below the needed gain cannot exceed it, so peaks
/// are caught before they arrive and the output stays under the ceiling; a final clamp
/// catches float rounding. The attack (the look-ahead) is the latency, and it may change
/// while the unit runs, as AUPeakLimiter's does: the kernel keeps room for the longest
/// look-ahead, and a host that follows latency changes aligns the other paths again.
/// Parameter ids follow `AUPeakLimiter` where it has them.
public final class PeakLimiter: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.peakLimiter, manufacturer: Manufacturer.trellis)


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

    /// The look-ahead the attack asks for, in frames: what the kernel delays by once it
    /// has the attack's value.
    public override var latencyFrames: Int { PeakLimiterKernel.lookahead(milliseconds: values[0], sampleRate: sampleRate) }

    public override var tailTime: Double { Double(latencyFrames) / sampleRate }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try matchingChannelCount()
        let longest = PeakLimiterKernel.lookahead(milliseconds: parameters[0].range.upperBound, sampleRate: sampleRate)
        let lookahead = latencyFrames
        var ringSize = 1
        while ringSize < longest + 1 { ringSize <<= 1 }
        let rate = sampleRate, values = values.view
        kernelStorage = KernelStorage(render: { PeakLimiterKernel.render($0, $1) }, reset: { PeakLimiterKernel.reset($0) }) { memory in
            var kernel = PeakLimiterKernel(
                sampleRate: rate, channels: channels, lookahead: lookahead, longest: longest,
                delayLines: memory.take(ringSize * channels), ringSize: ringSize, boxValues: memory.take(longest + 1),
                minimum: SlidingMinimum(window: lookahead + 1, longest: longest + 1, in: memory), values: values)
            kernel.reset()
            return kernel
        }
    }
}
