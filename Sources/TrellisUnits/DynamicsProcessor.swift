import TrellisCore

/// A compressor and downward expander with AUDynamicsProcessor's parameters (its ids for
/// the ones it has), and what people expect of a compressor besides: an explicit ratio,
/// a soft knee, makeup gain, a side-chain key on input bus 1 and stereo link. The curve
/// is `DynamicsCurve`; the smoothing is `DynamicsProcessorKernel`'s. No latency: the
/// detector reads the sample it changes.
public final class DynamicsProcessor: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.dynamicsProcessor, manufacturer: Manufacturer.trellis)


    /// With `keyInput`, input bus 1 is the side-chain key (used while `sidechain` is on);
    /// without, the unit has the one input (the LV2 export). Thread: control.
    public init(keyInput: Bool = true) {
        super.init(description: Self.componentDescription, shortName: "compressor", inputs: keyInput ? [2, 2] : [2], outputs: [2])
        let ramped: ParameterFlags = [.readable, .writable, .ramped]
        let toggle: ParameterFlags = [.readable, .writable, .toggled]
        for info in [
            ParameterInfo(address: ParameterAddress(0), identifier: "threshold", name: "Threshold", unit: .decibels, range: -40...20, defaultValue: -20),
            ParameterInfo(address: ParameterAddress(1), identifier: "headRoom", name: "Head Room", unit: .decibels, range: 0.1...40, defaultValue: 5),
            ParameterInfo(address: ParameterAddress(2), identifier: "expansionRatio", name: "Expansion Ratio", unit: .ratio, range: 1...50, defaultValue: 2),
            ParameterInfo(address: ParameterAddress(3), identifier: "expansionThreshold", name: "Expansion Threshold", unit: .decibels, range: -120...0, defaultValue: -100),
            ParameterInfo(address: ParameterAddress(4), identifier: "attackTime", name: "Attack Time", unit: .seconds, range: 0.0001...0.2, defaultValue: 0.001, flags: [.readable, .writable, .logarithmic]),
            ParameterInfo(address: ParameterAddress(5), identifier: "releaseTime", name: "Release Time", unit: .seconds, range: 0.01...3, defaultValue: 0.05, flags: [.readable, .writable, .logarithmic]),
            ParameterInfo(address: ParameterAddress(6), identifier: "overallGain", name: "Overall Gain", unit: .decibels, range: -40...40, defaultValue: 0, flags: ramped),
            ParameterInfo(address: ParameterAddress(100), identifier: "ratio", name: "Ratio (0: from Head Room)", unit: .ratio, range: 0...50, defaultValue: 0),
            ParameterInfo(address: ParameterAddress(101), identifier: "kneeWidth", name: "Knee Width", unit: .decibels, range: 0...40, defaultValue: 0),
            ParameterInfo(address: ParameterAddress(102), identifier: "makeupGain", name: "Makeup Gain", unit: .decibels, range: 0...40, defaultValue: 0, flags: ramped),
            ParameterInfo(address: ParameterAddress(103), identifier: "sidechain", name: "Side-chain Key (Input 1)", unit: .boolean, range: 0...1, defaultValue: 0, flags: toggle),
            ParameterInfo(address: ParameterAddress(104), identifier: "stereoLink", name: "Stereo Link", unit: .boolean, range: 0...1, defaultValue: 1, flags: toggle),
            ParameterInfo(address: ParameterAddress(1000), identifier: "compressionAmount", name: "Gain Reduction", unit: .decibels, range: -160...0, defaultValue: 0, flags: .meter),
            ParameterInfo(address: ParameterAddress(2000), identifier: "inputAmplitude", name: "Input Amplitude", unit: .decibels, range: -160...40, defaultValue: -160, flags: .meter),
            ParameterInfo(address: ParameterAddress(3000), identifier: "outputAmplitude", name: "Output Amplitude", unit: .decibels, range: -160...40, defaultValue: -160, flags: .meter),
        ] { declareParameter(info) }
    }

    /// The curve the parameters describe now. Thread: control.
    public var curve: DynamicsCurve {
        let threshold = Double(values[0]), ratio = Double(values[7])
        return DynamicsCurve(
            threshold: threshold,
            ratio: ratio >= 1 ? ratio : DynamicsCurve.ratio(threshold: threshold, headRoom: Double(values[1])),
            kneeWidth: Double(values[8]), expansionThreshold: Double(values[3]), expansionRatio: Double(values[2]))
    }

    public override var tailTime: Double { values[5].decimal * 7 }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try matchingChannelCount()
        let rate = sampleRate, frames = maximumFramesPerSlice, values = values.view
        kernelStorage = KernelStorage(render: { DynamicsProcessorKernel.render($0, $1) }, reset: { DynamicsProcessorKernel.reset($0) }) { memory in
            var kernel = DynamicsProcessorKernel(
                sampleRate: rate, channels: channels, envelopes: memory.take(channels), work: memory.take(frames), values: values)
            kernel.reset()
            return kernel
        }
    }
}
