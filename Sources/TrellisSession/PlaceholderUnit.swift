import TrellisCore

/// Stands in for a plugin that is not installed (or would not load), so that a session
/// still loads, runs and saves. It keeps the node as written — URI, parameters, preset,
/// state — and a save writes that back unchanged.
///
/// Its buses are shaped to fit the connections the session makes to it, MIDI ones too.
/// It renders its first input bus to its first output bus unchanged when both have the
/// same width (a pass-through), and silence everywhere else; it outputs no MIDI.
public final class PlaceholderUnit: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: "plhd", manufacturer: Manufacturer.trellis)

    /// The node exactly as the session wrote it.
    public let spec: NodeSpec
    /// Why the real unit could not be made.
    public let reason: String

    private let midiBuses: (inputs: Int, outputs: Int)

    /// `inputs` and `outputs` are channel counts per bus. Thread: control.
    public init(spec: NodeSpec, reason: String, inputs: [Int], outputs: [Int], midiInputs: Int = 0, midiOutputs: Int = 0) {
        self.spec = spec
        self.reason = reason
        midiBuses = (midiInputs, midiOutputs)
        super.init(description: Self.componentDescription, shortName: "placeholder", inputs: inputs, outputs: outputs)
    }

    public override func midiBusCount(_ scope: Scope) -> Int {
        scope == .input ? midiBuses.inputs : (scope == .output ? midiBuses.outputs : 0)
    }

    public override var name: String { "placeholder for \(spec.unitText)" }

    /// True when the first input passes to the first output.
    public var passesThrough: Bool {
        guard elementCount(.input) > 0, elementCount(.output) > 0,
              let input = try? format(scope: .input, element: 0), let output = try? format(scope: .output, element: 0)
        else { return false }
        return input.channelCount == output.channelCount
    }


    public override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(PlaceholderKernel(), render: { PlaceholderKernel.render($0, $1) }, reset: { PlaceholderKernel.reset($0) })
    }
}

/// Passes the first input to the first output when they are as wide, and is silent
/// elsewhere: the plugin that is missing does nothing. Thread: audio.
struct PlaceholderKernel: UnitKernel {
    func process(_ context: RenderContext) -> RenderStatus {
        for bus in 0..<context.outputs.count {
            if bus == 0, context.inputs.count > 0, context.inputs[0].channelCount == context.outputs[0].channelCount {
                context.outputs[0].copy(from: context.inputs[0], frameCount: context.frameCount)
            } else {
                context.outputs[bus].clear(frameCount: context.frameCount)
            }
        }
        return .ok
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}

extension NodeSpec {
    /// The unit as written: `unit: X`, `lv2: URI` or `subgraph: NAME`.
    public var unitText: String {
        switch source {
        case .unit(let key): key
        case .lv2(let uri): "lv2:\(uri)"
        case .subgraph(let name): "subgraph \(name)"
        }
    }
}
