/// What a JACK head node registers and how it connects. Thread: any (a plain value).
public struct JACKConfiguration: Sendable, Equatable {
    /// The client name asked for; JACK may append a suffix when it is taken.
    public var clientName: String
    /// The server to join; nil means the default server (or `$JACK_DEFAULT_SERVER`).
    public var serverName: String?
    /// Capture ports `in_1`...`in_N`: the head node's input element.
    public var inputChannels: Int
    /// Playback ports `out_1`...`out_N`: the head node's output element.
    public var outputChannels: Int
    /// MIDI input ports `midi_in_1`...; each cycle's events reach the render source with the cycle.
    public var midiInputs: Int
    /// MIDI output ports `midi_out_1`...; the render source writes them each cycle.
    public var midiOutputs: Int = 0
    /// Connections to make when the client starts and after the server returns.
    public var connections: [JACKConnectionRule]
    /// Connects inputs, outputs and MIDI inputs to the physical ports in order. Off unless asked for.
    public var connectPhysicalPorts: Bool
    /// How many MIDI events one cycle can hold across all MIDI ports; more are dropped and counted.
    public var midiEventCapacity: Int
    /// Bytes of MIDI data one cycle can hold across all MIDI ports.
    public var midiByteCapacity: Int
    /// How often to try reaching a server that went away, in milliseconds.
    public var reconnectIntervalMilliseconds: Int
    /// Names for the capture ports in place of `in_1`...; shorter lists fall back to the defaults.
    public var inputNames: [String] = []
    /// Names for the playback ports in place of `out_1`....
    public var outputNames: [String] = []
    /// Names for the MIDI input ports in place of `midi_in_1`....
    public var midiInputNames: [String] = []
    /// Names for the MIDI output ports in place of `midi_out_1`....
    public var midiOutputNames: [String] = []
    /// Whether the client follows JACK transport, or is also its timebase master.
    public var transport = JACKTransportRole.none
    /// When to keep idle CPUs responsive for the cycle's wakes, on a real-time server.
    public var cpuLatency = CPULatencyPolicy.auto

    public init(
        clientName: String = "trellis",
        serverName: String? = nil,
        inputChannels: Int = 2,
        outputChannels: Int = 2,
        midiInputs: Int = 0,
        connections: [JACKConnectionRule] = [],
        connectPhysicalPorts: Bool = false,
        midiEventCapacity: Int = 1024,
        midiByteCapacity: Int = 16384,
        reconnectIntervalMilliseconds: Int = 200
    ) {
        self.clientName = clientName
        self.serverName = serverName
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.midiInputs = midiInputs
        self.connections = connections
        self.connectPhysicalPorts = connectPhysicalPorts
        self.midiEventCapacity = midiEventCapacity
        self.midiByteCapacity = midiByteCapacity
        self.reconnectIntervalMilliseconds = reconnectIntervalMilliseconds
    }

    /// Short names of the capture ports, in order.
    public var inputPortNames: [String] { (0..<inputChannels).map { $0 < inputNames.count ? inputNames[$0] : "in_\($0 + 1)" } }
    /// Short names of the playback ports, in order.
    public var outputPortNames: [String] { (0..<outputChannels).map { $0 < outputNames.count ? outputNames[$0] : "out_\($0 + 1)" } }
    /// Short names of the MIDI input ports, in order.
    public var midiInputPortNames: [String] { (0..<midiInputs).map { $0 < midiInputNames.count ? midiInputNames[$0] : "midi_in_\($0 + 1)" } }
    /// Short names of the MIDI output ports, in order.
    public var midiOutputPortNames: [String] {
        (0..<midiOutputs).map { $0 < midiOutputNames.count ? midiOutputNames[$0] : "midi_out_\($0 + 1)" }
    }
}

/// One line of a session's JACK wiring: some of our ports to some of the server's ports.
///
/// `ports` names our ports by short name (`in_1`) or by a POSIX extended regular
/// expression over short names (`in_.*`); `peers` names the other side by full name
/// (`system:capture_1`) or by pattern (`system:capture_[1-4]`). Patterns match whole
/// names. One port of ours connects to every peer that matches; several are paired with
/// the peers in order (the first with the first, ...), and the surplus stays unconnected.
public struct JACKConnectionRule: Sendable, Hashable {
    public var ports: String
    public var peers: String

    public init(ports: String, peers: String) {
        self.ports = ports
        self.peers = peers
    }
}

