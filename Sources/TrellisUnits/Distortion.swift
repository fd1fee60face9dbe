import TrellisCore

/// A distortion with AVAudioUnitDistortion's pre-gain and wet/dry mix, a drive, six
/// curves (soft clip, hard clip, tube, fold, bit crush, decimate), a tone control, and
/// the AVAudioUnitDistortionPreset entries these can play (`presets`). The curves run at
/// 8× the rate, so what they add above the band is filtered away instead of folding
/// back into it; that costs `Oversampler.latency` frames of latency, which the dry path
/// shares and the unit reports.
public final class Distortion: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.distortion, manufacturer: Manufacturer.trellis)

    /// AVAudioUnitDistortionPreset's entries that a curve, drive and tone can play, by
    /// their names there (the echo and ring-modulator ones need units this one is not).
    public static let presets: [(name: String, curve: DistortionCurve, drive: Float, tone: Float, preGain: Float, wetDryMix: Float)] = [
        ("Drums Bit Brush", .bitCrush, 70, 20, -6, 50),
        ("Drums LoFi", .bitCrush, 55, -60, -6, 70),
        ("Multi Broken Speaker", .hardClip, 80, 40, -6, 100),
        ("Multi Cellphone Concert", .hardClip, 60, 80, -6, 100),
        ("Multi Decimated 1", .decimate, 20, 0, -6, 50),
        ("Multi Decimated 2", .decimate, 40, 0, -6, 60),
        ("Multi Decimated 3", .decimate, 60, 0, -6, 70),
        ("Multi Decimated 4", .decimate, 85, 0, -6, 80),
        ("Multi Distorted Funk", .tube, 60, 20, -6, 70),
        ("Multi Distorted Cubed", .softClip, 70, 0, -6, 100),
        ("Multi Distorted Squared", .tube, 85, -20, -6, 100),
        ("Multi Everything Is Broken", .fold, 90, 30, -6, 100),
        ("Speech Radio Tower", .hardClip, 50, 60, -6, 100),
    ]

    private static let presetList = FactoryPresetList(presets.map {
        ParameterPreset(name: $0.name, values: ["curve": Float($0.curve.rawValue), "drive": $0.drive, "tone": $0.tone,
                                                "preGain": $0.preGain, "wetDryMix": $0.wetDryMix])
    })


    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "distortion", inputs: [2], outputs: [2])
        let ramped: ParameterFlags = [.readable, .writable, .ramped]
        for info in [
            ParameterInfo(address: ParameterAddress(15), identifier: "wetDryMix", name: "Dry/Wet Mix", unit: .percent, range: 0...100, defaultValue: 50, flags: ramped),
            ParameterInfo(address: ParameterAddress(100), identifier: "preGain", name: "Pre-Gain", unit: .decibels, range: -80...20, defaultValue: -6, flags: ramped),
            ParameterInfo(address: ParameterAddress(101), identifier: "drive", name: "Drive", unit: .percent, range: 0...100, defaultValue: 50),
            ParameterInfo(address: ParameterAddress(102), identifier: "curve", name: "Curve", unit: .indexed, range: 0...Float(DistortionCurve.allCases.count - 1),
                          defaultValue: 0, flags: [.readable, .writable, .enumeration], valueStrings: DistortionCurve.allCases.map(\.name)),
            ParameterInfo(address: ParameterAddress(103), identifier: "tone", name: "Tone (dark to bright)", unit: .percent, range: -100...100, defaultValue: 0),
            ParameterInfo(address: ParameterAddress(104), identifier: "outputGain", name: "Output Gain", unit: .decibels, range: -40...20, defaultValue: 0, flags: ramped),
        ] { declareParameter(info) }
    }

    public override var factoryPresets: [Preset] { Self.presetList.presets }

    public override func applyFactoryPreset(_ preset: Preset) throws(AudioUnitError) {
        try Self.presetList.apply(preset, to: self)
    }

    public override var latencyFrames: Int { Oversampler.latency }

    public override var tailTime: Double { Double(Oversampler.latency) / sampleRate }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try matchingChannelCount()
        var ring = 1
        while ring < Oversampler.latency + 1 { ring <<= 1 }
        let rate = sampleRate
        kernelStorage = KernelStorage(render: { DistortionKernel.render($0, $1) }, reset: { DistortionKernel.reset($0) }) { memory in
            let oversamplers = memory.take(channels, of: Oversampler.self)
            for channel in 0..<channels { (oversamplers + channel).initialize(to: .make(in: memory)) }
            var kernel = DistortionKernel(
                sampleRate: rate, channels: channels, oversamplers: oversamplers, shapers: memory.take(channels, repeating: DistortionShaper()),
                dryLines: memory.take(channels * ring), dryRing: ring, tiltStates: memory.take(channels), fast: memory.take(Oversampler.factor))
            kernel.reset()
            return kernel
        }
    }
}
