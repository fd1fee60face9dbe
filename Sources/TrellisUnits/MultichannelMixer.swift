import TrellisCore

/// Core Audio's multichannel mixer: any number of mono or stereo inputs summed into one
/// stereo output, with per-input volume, equal-power pan, mute and enable, an output
/// volume, and peak/average meters per input and on the output.
///
/// Input meters read each input as it arrives (pre-fader); the output meters read the
/// mix. Meters cover the last render slice, in dBFS with a -160 dB floor.
public final class MultichannelMixer: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.mixer, subtype: BuiltInSubtype.multichannelMixer, manufacturer: Manufacturer.trellis)

    /// Parameter ids, Core Audio's where it has one.
    public enum ParameterID {
        public static let volume: UInt32 = 0
        public static let enable: UInt32 = 1
        public static let pan: UInt32 = 2
        public static let mute: UInt32 = 5
        public static let metering: UInt32 = 6
        public static let averagePower: UInt32 = 3000
        public static let peakPower: UInt32 = 4000
    }


    /// Thread: control.
    public init(inputCount: Int = 8) {
        super.init(description: Self.componentDescription, shortName: "mixer",
                   inputs: Array(repeating: 2, count: inputCount), outputs: [2], fixedScopes: [.output])
        declareParameter(ParameterInfo(address: ParameterAddress(ParameterID.volume), identifier: "volume",
                                       name: "Output Volume", unit: .linearGain, range: 0...4, defaultValue: 1,
                                       flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(ParameterID.metering), identifier: "metering",
                                       name: "Metering", unit: .boolean, range: 0...1, defaultValue: 1))
        declareParameter(ParameterInfo(address: ParameterAddress(ParameterID.peakPower, scope: .output), identifier: "out.peak",
                                       name: "Output Peak Power", unit: .decibels, range: -160...40, defaultValue: -160, flags: .meter))
        declareParameter(ParameterInfo(address: ParameterAddress(ParameterID.averagePower, scope: .output), identifier: "out.average",
                                       name: "Output Average Power", unit: .decibels, range: -160...40, defaultValue: -160, flags: .meter))
        declareInputParameters()
    }

    private func declareInputParameters() {
        for element in 0..<elementCount(.input) {
            func address(_ id: UInt32) -> ParameterAddress { ParameterAddress(id, scope: .input, element: element) }
            let prefix = "in\(element)."
            let label = "Input \(element) "
            declareParameter(ParameterInfo(address: address(ParameterID.volume), identifier: prefix + "volume", name: label + "Volume",
                                           unit: .linearGain, range: 0...4, defaultValue: 1, flags: [.readable, .writable, .ramped]))
            declareParameter(ParameterInfo(address: address(ParameterID.enable), identifier: prefix + "enable", name: label + "Enable",
                                           unit: .boolean, range: 0...1, defaultValue: 1, flags: [.readable, .writable, .toggled, .ramped]))
            declareParameter(ParameterInfo(address: address(ParameterID.pan), identifier: prefix + "pan", name: label + "Pan",
                                           unit: .pan, range: -1...1, defaultValue: 0, flags: [.readable, .writable, .ramped]))
            declareParameter(ParameterInfo(address: address(ParameterID.mute), identifier: prefix + "mute", name: label + "Mute",
                                           unit: .boolean, range: 0...1, defaultValue: 0, flags: [.readable, .writable, .toggled, .ramped]))
            declareParameter(ParameterInfo(address: address(ParameterID.peakPower), identifier: prefix + "peak", name: label + "Peak Power",
                                           unit: .decibels, range: -160...40, defaultValue: -160, flags: .meter))
            declareParameter(ParameterInfo(address: address(ParameterID.averagePower), identifier: prefix + "average", name: label + "Average Power",
                                           unit: .decibels, range: -160...40, defaultValue: -160, flags: .meter))
        }
    }

    public override func elementCountDidChange(scope: Scope) {
        guard scope == .input else { return }
        removeParameters(scope: .input)
        declareInputParameters()
    }

    public override func validateFormat(_ format: StreamFormat, scope: Scope, element: Int) throws(AudioUnitError) {
        try super.validateFormat(format, scope: scope, element: element)
        let allowed = scope == .input ? 1...2 : 2...2
        guard allowed.contains(format.channelCount) else {
            throw .formatNotSupported(format, reason: scope == .input ? "inputs are mono or stereo" : "the output is stereo", unit: name)
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let inputCount = elementCount(.input)
        var inputs: [MixerInput] = []
        for element in 0..<inputCount {
            var input = MixerInput()
            input.channels = try format(scope: .input, element: element).channelCount
            inputs.append(input)
        }
        let rate = sampleRate, values = values.view
        kernelStorage = KernelStorage(render: { MultichannelMixerKernel.render($0, $1) }, reset: { MultichannelMixerKernel.reset($0) }) { memory in
            MultichannelMixerKernel(sampleRate: rate, inputs: memory.copy(inputs), inputCount: inputCount, values: values)
        }
    }
}
