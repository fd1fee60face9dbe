import TrellisCore

/// What both MIDI port nodes are: a backend's MIDI port by number, with no audio, whose
/// MIDI the program moves itself, so its kernel does nothing. Its one MIDI bus, "midi",
/// is on the side the graph meets it.
public class MIDIPortNode: AudioUnitBase, @unchecked Sendable {
    /// The backend's MIDI port, 0-based, in the order the session declares them.
    public let port: Int
    private let busScope: Scope

    init(port: Int, busScope: Scope, description: ComponentDescription, shortName: String) {
        self.port = port
        self.busScope = busScope
        super.init(description: description, shortName: shortName, inputs: [], outputs: [])
    }

    public override func midiBusCount(_ scope: Scope) -> Int { scope == busScope ? 1 : 0 }
    public override func midiBusNames(_ scope: Scope) -> [String] { scope == busScope ? ["midi"] : [] }

    public override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(IdleKernel(), render: { IdleKernel.render($0, $1) }, reset: { IdleKernel.reset($0) })
    }
}

/// Where one of the backend's MIDI input ports enters a graph (a JACK MIDI input named
/// under `jack: midi-inputs:`): a node with one MIDI output bus and no audio. The
/// program copies the port's events of each cycle into that bus; the node itself never
/// renders. Offline, the port carries nothing.
public final class MIDIInputPort: MIDIPortNode, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.output, subtype: BuiltInSubtype.midiInputPort, manufacturer: Manufacturer.trellis)

    public init(port: Int) {
        super.init(port: port, busScope: .output, description: Self.componentDescription, shortName: "midi-input")
    }

    public override var role: UnitRole { .midiInputPort(port) }
}

/// Where MIDI leaves a graph for one of the backend's MIDI output ports (a JACK MIDI
/// output named under `jack: midi-outputs:`): a node with one MIDI input bus, which
/// any number of MIDI outputs may feed (merged in time order). Offline, what reaches
/// it goes nowhere.
public final class MIDIOutputPort: MIDIPortNode, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.output, subtype: BuiltInSubtype.midiOutputPort, manufacturer: Manufacturer.trellis)

    public init(port: Int) {
        super.init(port: port, busScope: .input, description: Self.componentDescription, shortName: "midi-output")
    }

    public override var role: UnitRole { .midiOutputPort(port) }
}
