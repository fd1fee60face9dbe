import TrellisCore
import TrellisEngine
import TrellisUnits

/// A graph used as one node of another: its input buses are its input node's output
/// buses, its one output bus is what its generic output receives. The enclosing
/// graph's compiler inlines it, so a subgraph costs nothing at run time; rendered on
/// its own, it runs its own compiled program.
public final class Subgraph: AudioUnitBase, @unchecked Sendable {
    public static let description = ComponentDescription(
        type: ComponentType.output, subtype: BuiltInSubtype.subgraph, manufacturer: Manufacturer.trellis)

    public let graph: Graph
    private var program: RenderProgram?

    /// `graph` must hold exactly one generic output and at most one graph input.
    public init(graph: Graph, name: String = "subgraph") throws(GraphError) {
        self.graph = graph
        let output = graph.nodes.filter { $0.unit.role == .graphOutput }
        guard output.count == 1 else {
            throw .subgraph(node: name, reason: output.isEmpty ? "it has no output node" : "it has \(output.count) output nodes")
        }
        let inputs = graph.nodes.filter { $0.unit.role == .graphInput }
        guard inputs.count <= 1 else { throw .subgraph(node: name, reason: "it has \(inputs.count) input nodes") }
        let inputChannels: [Int] = inputs.first.map { node in
            (0..<node.unit.elementCount(.output)).map { (try? node.unit.format(scope: .output, element: $0).channelCount) ?? 2 }
        } ?? []
        let outputChannels = (try? output[0].unit.format(scope: .input, element: 0).channelCount) ?? 2
        super.init(description: Self.description, shortName: name, inputs: inputChannels, outputs: [outputChannels])
    }

    public override var latencyFrames: Int { program?.plan.latency ?? 0 }

    public override func allocateRenderResources() throws(AudioUnitError) {
        do {
            try graph.prepareAsSubgraph(sampleRate: sampleRate, maximumFrames: maximumFramesPerSlice)
            let plan = try GraphCompiler(graph: graph).compile()
            program = RenderProgram(plan: plan, maximumFrames: maximumFramesPerSlice)
        } catch {
            throw .failedToInitialize("\(error)", unit: name)
        }
    }

    public override func deallocateRenderResources() { program = nil }

    public override func reset() { program?.reset() }

    /// Standalone rendering; inside a graph the compiler inlines the subgraph instead.
    public override func render(_ context: RenderContext) -> RenderStatus {
        guard let program else { return .notInitialized }
        let input = context.inputs.count > 0 ? context.inputs[0] : .empty
        return program.run(frameCount: context.frameCount, timeStamp: context.timeStamp, input: input, output: context.outputs[0])
    }
}
