import TrellisCore

/// A test-signal generator: sine, band-limited square and saw, or white noise, at a
/// frequency and linear amplitude, on every channel of its one output bus.
public final class ToneGenerator: AudioUnitBase, @unchecked Sendable {
    public enum Waveform: Int, CaseIterable, Sendable {
        case sine, square, saw, noise
        public var name: String { ["sine", "square", "saw", "noise"][rawValue] }
    }

    public static let componentDescription = ComponentDescription(
        type: ComponentType.generator, subtype: BuiltInSubtype.toneGenerator, manufacturer: Manufacturer.trellis)

    public enum Parameter {
        public static let waveform = ParameterAddress(0)
        public static let frequency = ParameterAddress(1)
        public static let amplitude = ParameterAddress(2)
    }

    /// The noise generator's state, carried from one initialization to the next.
    private var noiseState: UInt64 = 0x9E37_79B9_7F4A_7C15

    public init(channelCount: Int = 2) {
        super.init(description: Self.componentDescription, shortName: "tone", inputs: [], outputs: [channelCount], fixedScopes: [.input, .output])
        declareParameter(ParameterInfo(
            address: Parameter.waveform, identifier: "waveform", name: "Waveform", unit: .indexed,
            range: 0...3, defaultValue: 0, flags: [.readable, .writable, .enumeration, .integer],
            valueStrings: Waveform.allCases.map(\.name)))
        declareParameter(ParameterInfo(
            address: Parameter.frequency, identifier: "freq", name: "Frequency", unit: .hertz,
            range: 0.01...100_000, defaultValue: 440, flags: [.readable, .writable, .logarithmic]))
        declareParameter(ParameterInfo(
            address: Parameter.amplitude, identifier: "amp", name: "Amplitude", unit: .linearGain,
            range: 0...1, defaultValue: 0.5, flags: [.readable, .writable, .ramped]))
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let kernel = ToneGeneratorKernel(sampleRate: sampleRate, frequency: Double(values[1]), noiseState: noiseState)
        kernelStorage = KernelStorage(kernel, render: { ToneGeneratorKernel.render($0, $1) }, reset: { ToneGeneratorKernel.reset($0) })
    }

    public override func deallocateRenderResources() {
        if let kernel = storedKernel(as: ToneGeneratorKernel.self) { noiseState = kernel.pointee.noiseState }
        kernelStorage = nil
    }

    /// Initial values (while initializing) land at once; later ones are smoothed.
    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        guard let kernel = storedKernel(as: ToneGeneratorKernel.self) else { return }
        if isInitialized {
            kernel.pointee.setParameter(index: index, value: value, rampFrames: rampFrames)
        } else {
            kernel.pointee.set(index: index, value: value, frames: 0)
        }
    }
}
