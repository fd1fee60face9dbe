import TrellisCore

/// A smoothed gain in decibels on every channel of one bus: the smallest effect, and
/// the unit that benchmarks and tests chain by the dozen.
public final class Gain: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.gain, manufacturer: Manufacturer.trellis)

    public static let gainParameter = ParameterAddress(0)


    public init(channelCount: Int = 2) {
        super.init(description: Self.componentDescription, shortName: "gain", inputs: [channelCount], outputs: [channelCount])
        declareParameter(ParameterInfo(
            address: Self.gainParameter, identifier: "gain", name: "Gain", unit: .decibels,
            range: -120...24, defaultValue: 0, flags: [.readable, .writable, .ramped]))
    }

    public override func validateConfiguration() throws(AudioUnitError) {
        let input = try format(scope: .input, element: 0), output = try format(scope: .output, element: 0)
        guard input.channelCount == output.channelCount else {
            throw .failedToInitialize("input has \(input.channelCount) channels, output \(output.channelCount)", unit: name)
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(GainKernel(), render: { GainKernel.render($0, $1) }, reset: { GainKernel.reset($0) })
    }

    /// Initial values (while initializing) land at once; later ones are smoothed.
    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        guard let kernel = storedKernel(as: GainKernel.self) else { return }
        if isInitialized {
            kernel.pointee.setParameter(index: index, value: value, rampFrames: rampFrames)
        } else {
            kernel.pointee.setGain(decibels: value, frames: 0)
        }
    }
}

/// 10^(dB/20). Thread: any.
@inline(__always)
public func decibelsToGain(_ decibels: Float) -> Float {
    Float(exp10Double(Double(decibels) / 20))
}
