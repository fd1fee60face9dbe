import TrellisCore
import TrellisEngine
import TrellisUnits

/// A graph used as one node of another: its input buses are its input node's output
/// buses, its one output bus is what its generic output receives. Its MIDI buses are
/// its MIDI port nodes: MIDI input bus k is what its `MIDIInputPort(port: k)` sends
/// inside, MIDI output bus k what reaches its `MIDIOutputPort(port: k)`. The enclosing
/// graph's compiler inlines it, so a subgraph costs nothing at run time; rendered on
/// its own, it runs its own compiled program (and its MIDI ports are the backend's).
public final class Subgraph: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.output, subtype: BuiltInSubtype.subgraph, manufacturer: Manufacturer.trellis)

    public let graph: Graph
    private var program: RenderProgram?
    /// The MIDI port nodes inside, as buses: each side's count and names.
    private let midiInputNames: [String]
    private let midiOutputNames: [String]

    /// `graph` must hold exactly one generic output (none where it only sends MIDI: then
    /// the node has no audio output) and at most one graph input.
    public init(graph: Graph, name: String = "subgraph") throws(GraphError) {
        self.graph = graph
        (midiInputNames, midiOutputNames) = try Self.midiPorts(of: graph, name: name)
        let output = graph.nodes.filter { $0.unit.role == .graphOutput }
        guard output.count == 1 || (output.isEmpty && !midiOutputNames.isEmpty) else {
            throw .subgraph(node: name, reason: output.isEmpty ? "it has no output node" : "it has \(output.count) output nodes")
        }
        let inputs = graph.nodes.filter { $0.unit.role == .graphInput }
        guard inputs.count <= 1 else { throw .subgraph(node: name, reason: "it has \(inputs.count) input nodes") }
        let inputChannels: [Int] = inputs.first.map { node in
            (0..<node.unit.elementCount(.output)).map { (try? node.unit.format(scope: .output, element: $0).channelCount) ?? 2 }
        } ?? []
        let outputChannels = output.first.map { (try? $0.unit.format(scope: .input, element: 0).channelCount) ?? 2 }
        super.init(description: Self.componentDescription, shortName: name, inputs: inputChannels, outputs: outputChannels.map { [$0] } ?? [])
    }

    /// The MIDI port nodes' names by port, each side numbered 0, 1, ... without a gap.
    private static func midiPorts(of graph: Graph, name: String) throws(GraphError) -> ([String], [String]) {
        var inputs: [Int: String] = [:], outputs: [Int: String] = [:]
        for node in graph.nodes {
            switch node.unit.role {
            case .midiInputPort(let port): inputs[port] = node.name
            case .midiOutputPort(let port): outputs[port] = node.name
            default: continue
            }
        }
        for (side, ports) in [("input", inputs), ("output", outputs)] where ports.keys.sorted() != Array(0..<ports.count) {
            throw .subgraph(node: name, reason: "its MIDI \(side) ports are not numbered 0 to \(ports.count - 1)")
        }
        return ((0..<inputs.count).map { inputs[$0]! }, (0..<outputs.count).map { outputs[$0]! })
    }

    public override func midiBusCount(_ scope: Scope) -> Int {
        scope == .input ? midiInputNames.count : scope == .output ? midiOutputNames.count : 0
    }

    /// The MIDI port nodes inside, by bus.
    public override func midiBusNames(_ scope: Scope) -> [String] {
        scope == .input ? midiInputNames : scope == .output ? midiOutputNames : []
    }

    /// The MIDI port node inside that is MIDI bus `bus` of `scope`.
    public func midiPortName(_ scope: Scope, _ bus: Int) -> String? {
        let names = scope == .input ? midiInputNames : midiOutputNames
        return names.indices.contains(bus) ? names[bus] : nil
    }

    public override var latencyFrames: Int { program?.plan.latency ?? 0 }

    public override func allocateRenderResources() throws(AudioUnitError) {
        do {
            try graph.prepareAsSubgraph(sampleRate: sampleRate, maximumFrames: maximumFramesPerSlice)
            let plan = try GraphCompiler(graph: graph).compile()
            let program = RenderProgram(plan: plan, maximumFrames: maximumFramesPerSlice)
            self.program = program
            // For rendering on its own; inside a graph the compiler inlines the subgraph.
            kernelStorage = KernelStorage(SubgraphKernel(program: Unmanaged.passUnretained(program).toOpaque()),
                                          render: { SubgraphKernel.render($0, $1) }, reset: { SubgraphKernel.reset($0) })
        } catch {
            throw .failedToInitialize("\(error)", unit: name)
        }
    }

    public override func deallocateRenderResources() {
        kernelStorage = nil
        program = nil
    }

    public override func reset() { program?.reset() }
}

/// Runs a subgraph's own program, for a subgraph rendered on its own. Thread: audio.
struct SubgraphKernel {
    /// An `Unmanaged<RenderProgram>`: the subgraph holds the program while the kernel lives.
    let program: UnsafeMutableRawPointer

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        let program = state.assumingMemoryBound(to: SubgraphKernel.self).pointee.program
        let context = context.assumingMemoryBound(to: RenderContext.self).pointee
        // One that only sends MIDI has no audio to give; on its own, its ports are the backend's.
        guard context.outputs.count > 0 else { return RenderStatus.ok.rawValue }
        let input = context.inputs.count > 0 ? context.inputs[0] : AudioBuffers(channelPointers: nil, channelCount: 0)
        return Unmanaged<RenderProgram>.fromOpaque(program)._withUnsafeGuaranteedRef { program in
            program.run(frameCount: context.frameCount, timeStamp: context.timeStamp, input: input, output: context.outputs[0])
        }.rawValue
    }

    static func reset(_ state: UnsafeMutableRawPointer) {
        Unmanaged<RenderProgram>.fromOpaque(state.assumingMemoryBound(to: SubgraphKernel.self).pointee.program)
            ._withUnsafeGuaranteedRef { $0.reset() }
    }
}
