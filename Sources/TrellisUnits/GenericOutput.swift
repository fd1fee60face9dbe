import TrellisCore

/// The end of a graph that an application pulls (Core Audio's generic output): its
/// input bus is what the graph produces, passed to its output unchanged.
public final class GenericOutput: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.output, subtype: BuiltInSubtype.genericOutput, manufacturer: Manufacturer.trellis)

    public init(channelCount: Int = 2) {
        super.init(description: Self.componentDescription, shortName: "output", inputs: [channelCount], outputs: [channelCount])
    }

    public override var role: UnitRole { .graphOutput }

    public override func validateConfiguration() throws(AudioUnitError) {
        let input = try format(scope: .input, element: 0)
        let output = try format(scope: .output, element: 0)
        guard input == output else {
            throw .failedToInitialize("input format \(input) differs from output format \(output)", unit: name)
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(PassThroughKernel(), render: { PassThroughKernel.render($0, $1) }, reset: { PassThroughKernel.reset($0) })
    }
}

/// Where a graph's own input enters: for a top-level graph the captured JACK ports or
/// an input file, for a subgraph the buses of the node that holds it. The engine fills
/// its output buses before the program runs; rendering it does nothing else.
public final class GraphInput: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.output, subtype: BuiltInSubtype.graphInput, manufacturer: Manufacturer.trellis)

    public init(channelCount: Int = 2) {
        super.init(description: Self.componentDescription, shortName: "input", inputs: [], outputs: [channelCount], fixedScopes: [.input])
    }

    public override var role: UnitRole { .graphInput }

    public override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(IdleKernel(), render: { IdleKernel.render($0, $1) }, reset: { IdleKernel.reset($0) })
    }
}
