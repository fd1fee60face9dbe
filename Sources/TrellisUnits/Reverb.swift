import TrellisCore

/// An algorithmic reverb (`ReverbKernel`'s feedback delay network) with AUReverb2's dry/wet
/// mix and gain, a decay time, pre-delay, damping and size, and AVAudioUnitReverb's
/// factory presets (`presets`, each with its decay time). Mono or stereo; a mono input
/// feeds both sides of a stereo output.
public final class Reverb: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.reverb, manufacturer: Manufacturer.trellis)

    /// AVAudioUnitReverbPreset's rooms, in its order, as decay (s), damping (%), size (%)
    /// and pre-delay (s).
    public static let presets: [(name: String, decayTime: Float, damping: Float, size: Float, preDelay: Float)] = [
        ("Small Room", 0.5, 60, 20, 0.004),
        ("Medium Room", 0.8, 55, 35, 0.008),
        ("Large Room", 1.2, 50, 50, 0.012),
        ("Medium Hall", 1.8, 45, 65, 0.018),
        ("Large Hall", 2.5, 40, 80, 0.025),
        ("Plate", 1.6, 20, 30, 0),
        ("Medium Chamber", 1.1, 50, 45, 0.010),
        ("Large Chamber", 1.6, 45, 60, 0.015),
        ("Cathedral", 5.5, 35, 100, 0.040),
        ("Large Room 2", 1.5, 40, 55, 0.015),
        ("Medium Hall 2", 2.0, 50, 65, 0.020),
        ("Medium Hall 3", 2.2, 30, 70, 0.022),
        ("Large Hall 2", 3.2, 45, 85, 0.030),
    ]

    private static let presetList = FactoryPresetList(presets.map {
        ParameterPreset(name: $0.name, values: ["decayTime": $0.decayTime, "damping": $0.damping, "size": $0.size, "preDelay": $0.preDelay])
    })


    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "reverb", inputs: [2], outputs: [2])
        let ramped: ParameterFlags = [.readable, .writable, .ramped]
        for info in [
            ParameterInfo(address: ParameterAddress(0), identifier: "wetDryMix", name: "Dry/Wet Mix", unit: .percent, range: 0...100, defaultValue: 100, flags: ramped),
            ParameterInfo(address: ParameterAddress(1), identifier: "gain", name: "Gain", unit: .decibels, range: -20...20, defaultValue: 0, flags: ramped),
            ParameterInfo(address: ParameterAddress(4), identifier: "decayTime", name: "Decay Time (RT60)", unit: .seconds, range: 0.1...20, defaultValue: 1.2, flags: [.readable, .writable, .logarithmic]),
            ParameterInfo(address: ParameterAddress(100), identifier: "preDelay", name: "Pre-delay", unit: .seconds, range: 0...Float(ReverbKernel.maximumPreDelay), defaultValue: 0.012),
            ParameterInfo(address: ParameterAddress(101), identifier: "damping", name: "High-frequency Damping", unit: .percent, range: 0...100, defaultValue: 50),
            ParameterInfo(address: ParameterAddress(102), identifier: "size", name: "Size", unit: .percent, range: 0...100, defaultValue: 50),
        ] { declareParameter(info) }
    }

    public override var factoryPresets: [Preset] { Self.presetList.presets }

    public override func applyFactoryPreset(_ preset: Preset) throws(AudioUnitError) {
        try Self.presetList.apply(preset, to: self)
    }

    /// Time for the tail to fall 60 dB after the pre-delay and the diffusers.
    public override var tailTime: Double { values[2].decimal + values[3].decimal + 0.05 }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try matchingChannelCount()
        guard channels <= 2 else {
            throw .failedToInitialize("the reverb is mono or stereo; its format has \(channels) channels", unit: name)
        }
        let rings = ReverbKernel.rings(sampleRate: sampleRate), rate = sampleRate, values = values.view
        kernelStorage = KernelStorage(render: { ReverbKernel.render($0, $1) }, reset: { ReverbKernel.reset($0) }) { memory in
            var kernel = ReverbKernel(
                sampleRate: rate, channels: channels, values: values,
                memory: memory.take(ReverbKernel.memorySize(lineRing: rings.line, diffuserRing: rings.diffuser, preDelayRing: rings.preDelay)),
                lineRing: rings.line, diffuserRing: rings.diffuser, preDelayRing: rings.preDelay,
                lines: memory.take(ReverbKernel.lineCount, repeating: ReverbKernel.LineState()))
            kernel.startOscillators()
            kernel.retune()
            kernel.reset()
            return kernel
        }
    }
}
