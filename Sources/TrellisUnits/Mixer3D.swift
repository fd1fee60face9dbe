import TrellisCore

/// Core Audio's 3D mixer, OpenAL-style: mono inputs placed by azimuth, elevation and
/// distance, attenuated by an OpenAL distance model, and panned onto a stereo, quad or
/// 5.1 output (chosen by the output bus's channel count; see `SpeakerLayout`).
///
/// Every speaker gain glides to its new value over the ramp, so moving a source never
/// clicks. Per-input ids follow `AU3DMixer` (azimuth 0, elevation 1, distance 2, gain 3);
/// mute is 12. The global distance settings are ids 1000-1003.
public final class Mixer3D: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.mixer, subtype: BuiltInSubtype.mixer3D, manufacturer: Manufacturer.trellis)

    public enum ParameterID {
        public static let azimuth: UInt32 = 0
        public static let elevation: UInt32 = 1
        public static let distance: UInt32 = 2
        public static let gain: UInt32 = 3
        public static let mute: UInt32 = 12
        public static let distanceModel: UInt32 = 1000
        public static let referenceDistance: UInt32 = 1001
        public static let maximumDistance: UInt32 = 1002
        public static let rolloff: UInt32 = 1003
    }

    private static let globalCount = 4
    private static let perInput = 5
    private static let maximumChannels = 6

    private var layout = SpeakerLayout.stereo
    private var inputCount = 0
    /// Speaker gains per input, [input][maximumChannels].
    private var gains: UnsafeMutablePointer<SmoothedValue>?
    private var scratch: UnsafeMutablePointer<Float>?
    /// The audio side's copy of every parameter value, as the events delivered them.
    private var settings: UnsafeMutablePointer<Float>?
    private var hasRendered = false

    /// Thread: control.
    public init(inputCount: Int = 8) {
        super.init(description: Self.componentDescription, shortName: "mixer3d",
                   inputs: Array(repeating: 1, count: inputCount), outputs: [2], fixedScopes: [.output])
        declareParameter(ParameterInfo(address: ParameterAddress(ParameterID.distanceModel), identifier: "model", name: "Distance Model",
                                       unit: .indexed, range: 0...Float(DistanceModel.allCases.count - 1),
                                       defaultValue: Float(DistanceModel.inverseClamped.rawValue),
                                       flags: [.readable, .writable, .enumeration, .ramped], valueStrings: DistanceModel.allCases.map(\.name)))
        declareParameter(ParameterInfo(address: ParameterAddress(ParameterID.referenceDistance), identifier: "reference", name: "Reference Distance",
                                       unit: .meters, range: 0.01...10_000, defaultValue: 1, flags: [.readable, .writable, .logarithmic, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(ParameterID.maximumDistance), identifier: "maxDistance", name: "Maximum Distance",
                                       unit: .meters, range: 0.01...100_000, defaultValue: 100_000, flags: [.readable, .writable, .logarithmic, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(ParameterID.rolloff), identifier: "rolloff", name: "Rolloff Factor",
                                       unit: .generic, range: 0...100, defaultValue: 1, flags: [.readable, .writable, .ramped]))
        declareInputParameters()
    }

    private func declareInputParameters() {
        for element in 0..<elementCount(.input) {
            func address(_ id: UInt32) -> ParameterAddress { ParameterAddress(id, scope: .input, element: element) }
            let prefix = "in\(element).", label = "Input \(element) "
            declareParameter(ParameterInfo(address: address(ParameterID.azimuth), identifier: prefix + "azimuth", name: label + "Azimuth",
                                           unit: .degrees, range: -180...180, defaultValue: 0, flags: [.readable, .writable, .ramped]))
            declareParameter(ParameterInfo(address: address(ParameterID.elevation), identifier: prefix + "elevation", name: label + "Elevation",
                                           unit: .degrees, range: -90...90, defaultValue: 0, flags: [.readable, .writable, .ramped]))
            declareParameter(ParameterInfo(address: address(ParameterID.distance), identifier: prefix + "distance", name: label + "Distance",
                                           unit: .meters, range: 0...100_000, defaultValue: 1, flags: [.readable, .writable, .ramped]))
            declareParameter(ParameterInfo(address: address(ParameterID.gain), identifier: prefix + "gain", name: label + "Gain",
                                           unit: .decibels, range: -120...20, defaultValue: 0, flags: [.readable, .writable, .ramped]))
            declareParameter(ParameterInfo(address: address(ParameterID.mute), identifier: prefix + "mute", name: label + "Mute",
                                           unit: .boolean, range: 0...1, defaultValue: 0, flags: [.readable, .writable, .toggled, .ramped]))
        }
    }

    public override func elementCountDidChange(scope: Scope) {
        guard scope == .input else { return }
        removeParameters(scope: .input)
        declareInputParameters()
    }

    public override func validateFormat(_ format: StreamFormat, scope: Scope, element: Int) throws(AudioUnitError) {
        try super.validateFormat(format, scope: scope, element: element)
        if scope == .input && format.channelCount != 1 {
            throw .formatNotSupported(format, reason: "3D mixer inputs are mono", unit: name)
        }
        if scope == .output && SpeakerLayout(channelCount: format.channelCount) == nil {
            throw .formatNotSupported(format, reason: "the output is stereo (2), quad (4) or 5.1 (6 channels)", unit: name)
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        layout = SpeakerLayout(channelCount: try format(scope: .output, element: 0).channelCount) ?? .stereo
        inputCount = elementCount(.input)
        let table = UnsafeMutablePointer<SmoothedValue>.allocate(capacity: max(1, inputCount * Self.maximumChannels))
        table.initialize(repeating: SmoothedValue(0), count: max(1, inputCount * Self.maximumChannels))
        gains = table
        scratch = .allocate(capacity: Self.maximumChannels)
        settings = .allocate(capacity: parameters.count)
        for index in parameters.indices { settings![index] = values[index] }
        hasRendered = false
    }

    public override func deallocateRenderResources() {
        gains?.deallocate()
        gains = nil
        scratch?.deallocate()
        scratch = nil
        settings?.deallocate()
        settings = nil
    }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        guard gains != nil, let settings else { return }
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
        guard let gains, let scratch, let values = settings else { return }
        let base = Self.globalCount + element * Self.perInput
        let model = DistanceModel(rawValue: Int(values[0].rounded())) ?? .inverseClamped
        let attenuation = model.gain(distance: values[base + 2], reference: values[1], maximum: values[2], rolloff: values[3])
        let level = values[base + 4] >= 0.5 ? 0 : attenuation * Decibels.gain(values[base + 3])
        layout.gains(azimuth: values[base], elevation: values[base + 1], into: scratch)
        for channel in 0..<layout.channelCount {
            gains[element * Self.maximumChannels + channel].set(scratch[channel] * level, frames: rampFrames)
        }
    }

    public override func render(_ context: RenderContext) -> RenderStatus {
        guard let gains else { return .notInitialized }
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
}
