import TrellisCore

/// Fan-out: copies its one input bus to each of its output buses. The number of
/// outputs is the output element count (default 2).
public final class Splitter: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.formatConverter, subtype: BuiltInSubtype.splitter, manufacturer: Manufacturer.trellis)

    public init(channelCount: Int = 2, outputs: Int = 2) {
        super.init(
            description: Self.componentDescription, shortName: "splitter",
            inputs: [channelCount], outputs: Array(repeating: channelCount, count: outputs), fixedScopes: [.input])
    }

    public override func validateConfiguration() throws(AudioUnitError) {
        let input = try format(scope: .input, element: 0)
        for bus in 0..<elementCount(.output) where try format(scope: .output, element: bus).channelCount != input.channelCount {
            throw .failedToInitialize("output \(bus) must have the input's \(input.channelCount) channels", unit: name)
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(SplitterKernel(), render: { SplitterKernel.render($0, $1) }, reset: { SplitterKernel.reset($0) })
    }
}

/// Fan-in by channels: joins its input buses, in order, into one output bus whose
/// channel count is their sum. The number of inputs is the input element count.
public final class Merger: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.formatConverter, subtype: BuiltInSubtype.merger, manufacturer: Manufacturer.trellis)

    public init(inputs: [Int] = [1, 1]) {
        super.init(
            description: Self.componentDescription, shortName: "merger",
            inputs: inputs, outputs: [inputs.reduce(0, +)], fixedScopes: [.output])
    }

    /// Keeps the output as wide as the inputs together.
    public override func elementCountDidChange(scope: Scope) {
        guard scope == .input else { return }
        var output = (try? format(scope: .output, element: 0)) ?? .canonical(sampleRate: sampleRate, channelCount: 1)
        let total = (0..<elementCount(.input)).reduce(0) { $0 + ((try? format(scope: .input, element: $1).channelCount) ?? 0) }
        output.channelCount = max(1, total)
        try? setFormat(output, scope: .output, element: 0)
    }

    public override func validateConfiguration() throws(AudioUnitError) {
        var total = 0
        for bus in 0..<elementCount(.input) { total += try format(scope: .input, element: bus).channelCount }
        let output = try format(scope: .output, element: 0)
        guard output.channelCount == total else {
            throw .failedToInitialize("output has \(output.channelCount) channels but the inputs add up to \(total)", unit: name)
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(MergerKernel(), render: { MergerKernel.render($0, $1) }, reset: { MergerKernel.reset($0) })
    }
}
