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

    private static let globalCount = 4
    private static let perInput = 6

    private struct Input {
        var channels = 1
        var volume = SmoothedValue(1)
        var pan = SmoothedValue(0)
        /// 1 while enabled and not muted; ramps so a mute never clicks.
        var audible = SmoothedValue(1)
        var isEnabled = true
        var isMuted = false
        var gainLeft: Float = 0
        var gainRight: Float = 0
    }

    private var inputs: UnsafeMutablePointer<Input>?
    private var inputCount = 0
    private var outputVolume = SmoothedValue(1)
    private var metering = true
    private var hasRendered = false

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
        inputCount = elementCount(.input)
        let table = UnsafeMutablePointer<Input>.allocate(capacity: max(1, inputCount))
        for element in 0..<inputCount {
            var input = Input()
            input.channels = try format(scope: .input, element: element).channelCount
            (table + element).initialize(to: input)
        }
        inputs = table
        hasRendered = false
    }

    public override func deallocateRenderResources() {
        inputs?.deallocate()
        inputs = nil
    }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        guard let inputs else { return }
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        switch index {
        case 0: outputVolume.set(value, frames: frames)
        case 1: metering = value >= 0.5
        case 2, 3: break
        default:
            let element = (index - Self.globalCount) / Self.perInput
            guard element < inputCount else { return }
            let input = inputs + element
            switch (index - Self.globalCount) % Self.perInput {
            case 0: input.pointee.volume.set(value, frames: frames)
            case 1: input.pointee.isEnabled = value >= 0.5
            case 2: input.pointee.pan.set(value, frames: frames)
            case 3: input.pointee.isMuted = value >= 0.5
            default: return
            }
            let audible: Float = input.pointee.isEnabled && !input.pointee.isMuted ? 1 : 0
            if audible != input.pointee.audible.target { input.pointee.audible.set(audible, frames: frames) }
        }
        if !hasRendered {
            // Before the first slice every gain lands at once.
            let volume = outputVolume.current
            for element in 0..<inputCount {
                (inputs[element].gainLeft, inputs[element].gainRight) = gains(of: inputs[element], outputVolume: volume)
            }
        }
    }

    @inline(__always)
    private func gains(of input: Input, outputVolume: Float) -> (Float, Float) {
        let level = input.volume.current * input.audible.current * outputVolume
        let (left, right) = input.channels == 1 ? PanLaw.mono(input.pan.current) : PanLaw.stereo(input.pan.current)
        return (left * level, right * level)
    }

    public override func render(_ context: RenderContext) -> RenderStatus {
        guard let inputs else { return .notInitialized }
        hasRendered = true
        let frames = context.frameCount
        let output = context.outputs[0]
        let left = output[0], right = output[1]
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
        let volume = outputVolume.advance(by: frames)
        let inverse = 1 / Float(max(1, frames))
        // Unconnected inputs all read the graph's one silent buffer: scan it once.
        var knownSilent: UnsafeMutablePointer<Float>?
        for element in 0..<min(inputCount, context.inputs.count) {
            let input = inputs + element
            let buffers = context.inputs[element]
            if metering {
                let level = BusLevel.measure(buffers, frameCount: frames)
                let base = Self.globalCount + element * Self.perInput
                publishOutputValue(index: base + 4, level.peakDecibels)
                publishOutputValue(index: base + 5, level.averageDecibels)
            }
            _ = input.pointee.volume.advance(by: frames)
            _ = input.pointee.pan.advance(by: frames)
            _ = input.pointee.audible.advance(by: frames)
            let startLeft = input.pointee.gainLeft, startRight = input.pointee.gainRight
            let (endLeft, endRight) = gains(of: input.pointee, outputVolume: volume)
            input.pointee.gainLeft = endLeft
            input.pointee.gainRight = endRight
            var silent = true
            for channel in 0..<buffers.channelCount where buffers[channel] != knownSilent {
                if !MixKernels.isSilent(buffers[channel], count: frames) {
                    silent = false
                    break
                }
                knownSilent = buffers[channel]
            }
            if silent { continue }
            if startLeft == endLeft && startRight == endRight {
                if endLeft == 0 && endRight == 0 { continue }
                if buffers.channelCount == 1 {
                    MixKernels.addMono(buffers[0], left: left, right: right, gains: (endLeft, endRight), count: frames)
                } else {
                    MixKernels.add(buffers[0], to: left, gain: endLeft, count: frames)
                    MixKernels.add(buffers[1], to: right, gain: endRight, count: frames)
                }
            } else {
                let stepLeft = (endLeft - startLeft) * inverse, stepRight = (endRight - startRight) * inverse
                MixKernels.addRamped(buffers[0], to: left, start: startLeft, step: stepLeft, count: frames)
                MixKernels.addRamped(buffers[buffers.channelCount - 1], to: right, start: startRight, step: stepRight, count: frames)
            }
        }
        if metering {
            let level = BusLevel.measure(output, frameCount: frames)
            publishOutputValue(index: 2, level.peakDecibels)
            publishOutputValue(index: 3, level.averageDecibels)
        }
        return .ok
    }
}
