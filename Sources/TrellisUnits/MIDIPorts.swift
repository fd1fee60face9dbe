import TrellisCore

/// Where one of the backend's MIDI input ports enters a graph (a JACK MIDI input named
/// under `jack: midi-inputs:`): a node with one MIDI output bus and no audio. The
/// program copies the port's events of each cycle into that bus; the node itself never
/// renders. Offline, the port carries nothing.
public final class MIDIInputPort: AudioUnitBase, @unchecked Sendable {
    public static let description = ComponentDescription(
        type: ComponentType.output, subtype: BuiltInSubtype.midiInputPort, manufacturer: Manufacturer.trellis)

    /// The backend's MIDI input port, 0-based, in the order the session declares them.
    public let port: Int

    public init(port: Int) {
        self.port = port
        super.init(description: Self.description, shortName: "midi-input", inputs: [], outputs: [])
    }

    public override var role: UnitRole { .midiInputPort(port) }
    public override func midiBusCount(_ scope: Scope) -> Int { scope == .output ? 1 : 0 }
    public override func midiBusNames(_ scope: Scope) -> [String] { scope == .output ? ["midi"] : [] }
}

/// Where MIDI leaves a graph for one of the backend's MIDI output ports (a JACK MIDI
/// output named under `jack: midi-outputs:`): a node with one MIDI input bus, which
/// any number of MIDI outputs may feed (merged in time order). Offline, what reaches
/// it goes nowhere.
public final class MIDIOutputPort: AudioUnitBase, @unchecked Sendable {
    public static let description = ComponentDescription(
        type: ComponentType.output, subtype: BuiltInSubtype.midiOutputPort, manufacturer: Manufacturer.trellis)

    /// The backend's MIDI output port, 0-based, in the order the session declares them.
    public let port: Int

    public init(port: Int) {
        self.port = port
        super.init(description: Self.description, shortName: "midi-output", inputs: [], outputs: [])
    }

    public override var role: UnitRole { .midiOutputPort(port) }
    public override func midiBusCount(_ scope: Scope) -> Int { scope == .input ? 1 : 0 }
    public override func midiBusNames(_ scope: Scope) -> [String] { scope == .input ? ["midi"] : [] }
}
