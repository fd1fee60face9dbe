import TrellisCore

/// Core Audio's 3D mixer, OpenAL-style: mono inputs placed by azimuth, elevation and
/// distance, attenuated by an OpenAL distance model, and panned onto a stereo, quad or
/// 5.1 output (chosen by the output bus's channel count; see `SpeakerLayout`). A stereo
/// input is not placed: its left and right pass through at its gain, mute and distance.
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
        if scope == .input && !(1...2).contains(format.channelCount) {
            throw .formatNotSupported(format, reason: "3D mixer inputs are mono (placed) or stereo (passed through)", unit: name)
        }
        if scope == .output && SpeakerLayout(channelCount: format.channelCount) == nil {
            throw .formatNotSupported(format, reason: "the output is stereo (2), quad (4) or 5.1 (6 channels)", unit: name)
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let layout = SpeakerLayout(channelCount: try format(scope: .output, element: 0).channelCount) ?? .stereo
        let inputCount = elementCount(.input)
        let rate = sampleRate, current = (0..<parameters.count).map { values[$0] }
        kernelStorage = KernelStorage(render: { Mixer3DKernel.render($0, $1) }, reset: { Mixer3DKernel.reset($0) }) { memory in
            Mixer3DKernel(
                sampleRate: rate, layout: layout, inputCount: inputCount,
                gains: memory.take(max(1, inputCount * Mixer3DKernel.stride), repeating: SmoothedValue(0)),
                scratch: memory.take(Mixer3DKernel.maximumChannels), settings: memory.copy(current))
        }
    }
}
