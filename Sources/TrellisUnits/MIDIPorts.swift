import TrellisCore

/// What both MIDI port nodes are: a backend's MIDI port by number, with no audio, whose
/// MIDI the program moves itself, so its kernel does nothing.
public class MIDIPortNode: AudioUnitBase, @unchecked Sendable {
    /// The backend's MIDI port, 0-based, in the order the session declares them.
    public let port: Int

    init(port: Int, description: ComponentDescription, shortName: String) {
        self.port = port
        super.init(description: description, shortName: shortName, inputs: [], outputs: [])
    }

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
        super.init(port: port, description: Self.componentDescription, shortName: "midi-input")
    }

    public override var role: UnitRole { .midiInputPort(port) }
    public override func midiBusCount(_ scope: Scope) -> Int { scope == .output ? 1 : 0 }
    public override func midiBusNames(_ scope: Scope) -> [String] { scope == .output ? ["midi"] : [] }
}

/// Where MIDI leaves a graph for one of the backend's MIDI output ports (a JACK MIDI
/// output named under `jack: midi-outputs:`): a node with one MIDI input bus, which
/// any number of MIDI outputs may feed (merged in time order). Offline, what reaches
/// it goes nowhere.
public final class MIDIOutputPort: MIDIPortNode, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.output, subtype: BuiltInSubtype.midiOutputPort, manufacturer: Manufacturer.trellis)

    public init(port: Int) {
        super.init(port: port, description: Self.componentDescription, shortName: "midi-output")
    }

    public override var role: UnitRole { .midiOutputPort(port) }
    public override func midiBusCount(_ scope: Scope) -> Int { scope == .input ? 1 : 0 }
    public override func midiBusNames(_ scope: Scope) -> [String] { scope == .input ? ["midi"] : [] }
}
