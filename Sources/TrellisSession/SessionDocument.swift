import TrellisCore
/// A session file decoded into typed fields, with the position of everything in it.
///
/// The document, not the graph, is what gets saved: a load keeps every node as the
/// user wrote it (a placeholder's settings included), and `LoadedSession.document()`
/// brings it up to date with the running graph before a save. Positions do not matter
/// to a save; a document built in code may leave them at the file's start.
public struct SessionDocument: Sendable {
    /// The format version; this Trellis reads and writes version 1.
    public var version: Int = SessionDocument.currentVersion
    public var defaults = SessionDefaults()
    /// Threads that render a cycle (`threads:`), 1 meaning one; nil leaves it to the
    /// program (the processors online for `trellis run` and `render`).
    public var threads: Int?
    /// Plugins run in processes of their own unless a node says `isolate: false`.
    public var isolate: Bool?
    public var jack: JackSpec?
    public var transport: TransportSpec?
    /// Controllers mapped to parameters and bypasses (`midi-map:`).
    public var midiMap: [MIDIMapSpec] = []
    public var graph = GraphBody()
    public var recorders: [RecorderSpec] = []
    /// The comments it was read with, which a save writes back.
    public var comments = SessionComments()
    /// Where the file was read from, as named to the loader.
    public var file: String
    public var location: SourceLocation

    public static let currentVersion = 1

    public init(file: String) {
        self.file = file
        location = SourceLocation(file: file, line: 1, column: 1)
    }
}

/// Rate and block size a session asks for when nothing overrides them.
public struct SessionDefaults: Sendable {
    public var sampleRate: Double?
    /// The largest slice a render asks for, in frames.
    public var blockSize: Int?
    public var positions = Positions()

    public init(sampleRate: Double? = nil, blockSize: Int? = nil) {
        self.sampleRate = sampleRate
        self.blockSize = blockSize
    }
}

/// Nodes, connections and subgraph definitions: the body of a session or of a subgraph.
public struct GraphBody: Sendable {
    public var nodes: [NodeSpec] = []
    public var connections: [ConnectionSpec] = []
    public var subgraphs: [SubgraphSpec] = []
    /// A subgraph's MIDI ports (`midi-inputs:`, `midi-outputs:`): each a node of the
    /// body and a MIDI bus of the subgraph node, in order. A session's own are JACK's.
    public var midiInputs: [String] = []
    public var midiOutputs: [String] = []
    public var location: SourceLocation?
    public var positions = Positions()

    public init(nodes: [NodeSpec] = [], connections: [ConnectionSpec] = [], subgraphs: [SubgraphSpec] = []) {
        self.nodes = nodes
        self.connections = connections
        self.subgraphs = subgraphs
    }
}

/// What a node is made of.
public enum NodeSource: Sendable, Equatable {
    /// A short name, a `type:subtype:manufacturer` triple, or `lv2:URI` (`unit:`).
    case unit(String)
    /// An LV2 plugin URI (`lv2:`).
    case lv2(String)
    /// A subgraph defined in `subgraphs:` (`subgraph:`).
    case subgraph(String)
}

/// One node as written.
public struct NodeSpec: Sendable {
    public var name: String
    public var source: NodeSource
    /// `name: value` in the order written. On a subgraph node, names are
    /// `inner-node.parameter` and override the definition.
    public var parameters: [ParameterSetting] = []
    public var preset: String?
    /// Saved plugin state (see `StatefulUnit`).
    public var state: String?
    /// Files by the name the unit takes them under, paths relative to the session file
    /// or absolute (see `FileTakingUnit`).
    public var files: [ParameterSetting] = []
    public var bypass: Bool?
    /// In a process of its own (see `NodeDescription.isolate`).
    public var isolate: Bool?
    public var deadline: Double?
    public var onFault: Isolation.FaultOutput?
    public var restart: Bool?
    /// `channel-map:` as entries (see `ChannelMap`).
    public var channelMap: [Int]?
    /// Bus counts and channel widths, where the unit's defaults do not fit.
    public var inputs: Int?
    public var outputs: Int?
    public var channels: Int?
    public var inputChannels: Int?
    public var outputChannels: Int?
    /// A file player's file, relative to the session file, and how often it repeats
    /// (0 plays once, -1 loops forever).
    public var file: String?
    public var loops: Int?
    /// Parameter lanes, in the order written.
    public var automation: [AutomationSpec] = []
    /// Where the node's name is, and each field's value.
    public var location: SourceLocation
    public var positions = Positions()

    public init(name: String, source: NodeSource, location: SourceLocation) {
        self.name = name
        self.source = source
        self.location = location
    }
}

/// A controller mapped as written: `{ cc: 7, channel: 1, from: keys, to: trim.gain,
/// min: -40, max: 0 }`. No `from` is any MIDI input port, no `channel` any channel;
/// `to` is `NODE.PARAMETER` or `NODE.bypass`; `min` and `max` are what controller
/// values 0 and 127 set, in the parameter's terms (its range when not written).
public struct MIDIMapSpec: Sendable {
    public var controller: Int
    /// 1...16 as musicians count channels.
    public var channel: Int?
    public var port: String?
    public var node: String
    /// nil for the node's bypass.
    public var parameter: String?
    public var minimum: String?
    public var maximum: String?
    public var location: SourceLocation

    public init(controller: Int, channel: Int?, port: String?, node: String, parameter: String?, minimum: String? = nil, maximum: String? = nil, location: SourceLocation) {
        self.controller = controller
        self.channel = channel
        self.port = port
        self.node = node
        self.parameter = parameter
        self.minimum = minimum
        self.maximum = maximum
        self.location = location
    }
}

/// A parameter's automation lane as written: `gain: [0s 0, 1s -20]`, or
/// `gain: { points: [...], step: true }` to hold each value until the next point.
/// Each point is a transport position and a value in the parameter's own terms.
public struct AutomationSpec: Sendable {
    public var parameter: String
    public var points: [(time: TransportTime, value: String)]
    public var stepped: Bool
    public var location: SourceLocation

    public init(parameter: String, points: [(time: TransportTime, value: String)], stepped: Bool, location: SourceLocation) {
        self.parameter = parameter
        self.points = points
        self.stepped = stepped
        self.location = location
    }

    /// `TIME VALUE` as one word: `1.5s -20`, `2|1|0 0.5`.
    public static func point(_ text: String) -> (time: TransportTime, value: String)? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 2, let time = TransportTime(String(words[0])) else { return nil }
        return (time, String(words[1]))
    }
}

/// A parameter value as written: the text is decoded by the parameter's kind at load.
public struct ParameterSetting: Sendable, Equatable {
    /// An identifier, a display name or an LV2 symbol.
    public var name: String
    /// The value's text, e.g. `-6`, `0.25`, `on`, `saw`.
    public var value: String
    public var location: SourceLocation
    public var valueLocation: SourceLocation

    public init(name: String, value: String, location: SourceLocation, valueLocation: SourceLocation? = nil) {
        self.name = name
        self.value = value
        self.location = location
        self.valueLocation = valueLocation ?? location
    }

    public static func == (lhs: ParameterSetting, rhs: ParameterSetting) -> Bool {
        lhs.name == rhs.name && lhs.value == rhs.value
    }
}

/// One end of a connection: a node and a bus (0 when not written); `midi` when written
/// as a MIDI bus (`arp.midi`, `arp.midi1`).
public struct BusReference: Sendable, Hashable, CustomStringConvertible {
    public var node: String
    public var bus: Int?
    public var midi: Bool

    public init(node: String, bus: Int? = nil, midi: Bool = false) {
        self.node = node
        self.bus = bus
        self.midi = midi
    }

    public var busIndex: Int { bus ?? 0 }
    public var description: String {
        midi ? "\(node).midi\(bus.map(String.init) ?? "")" : (bus.map { "\(node).\($0)" } ?? node)
    }
}

/// `source.bus -> destination.bus`, or the mapping form with `convert: true`.
public struct ConnectionSpec: Sendable {
    public enum Style: Sendable { case arrow, mapping }

    public var from: BusReference
    public var to: BusReference
    /// Map channels where the widths differ instead of refusing the connection.
    public var convert: Bool
    public var style: Style
    public var location: SourceLocation

    public init(from: BusReference, to: BusReference, convert: Bool = false, style: Style? = nil, location: SourceLocation) {
        self.from = from
        self.to = to
        self.convert = convert
        self.style = style ?? (convert ? .mapping : .arrow)
        self.location = location
    }

    public var text: String { "\(from) -> \(to)" }
}

/// A subgraph definition: written inline or kept in another session file.
public struct SubgraphSpec: Sendable {
    public enum Definition: Sendable {
        case inline(GraphBody)
        /// A session file, relative to the file that names it.
        case file(String)
    }

    public var name: String
    public var definition: Definition
    public var location: SourceLocation
    public var positions = Positions()

    public init(name: String, definition: Definition, location: SourceLocation) {
        self.name = name
        self.definition = definition
        self.location = location
    }
}

/// The JACK client a live session opens: its name, its ports (in order: the channels
/// of the graph's input and output nodes) and what they connect to.
public struct JackSpec: Sendable {
    public var client: String?
    public var inputs: [String] = []
    public var outputs: [String] = []
    /// MIDI input ports: each is a node of the graph, of that name, with one MIDI output
    /// bus (`keys -> piano`).
    public var midiInputs: [String] = []
    /// MIDI output ports: each is a node of the graph with one MIDI input bus
    /// (`arp.midi -> to_synth`).
    public var midiOutputs: [String] = []
    public var connect: [JackConnectionSpec] = []
    /// When idle CPUs are kept responsive on a real-time server: `auto`, `hold` or `off`
    /// (`CPULatencyPolicy`); nil is `auto`.
    public var cpuLatency: String?
    public var location: SourceLocation
    public var positions = Positions()

    public init(location: SourceLocation) {
        self.location = location
    }

    /// The values `cpu-latency` takes.
    public static let cpuLatencyPolicies = ["auto", "hold", "off"]
}

/// `from -> to` between one of the session's ports (by name) and other clients' ports
/// (`client:port`); either side may be a whole-name POSIX regular expression.
public struct JackConnectionSpec: Sendable, Equatable {
    public var from: String
    public var to: String
    public var location: SourceLocation

    public init(from: String, to: String, location: SourceLocation) {
        self.from = from
        self.to = to
        self.location = location
    }

    public static func == (lhs: JackConnectionSpec, rhs: JackConnectionSpec) -> Bool {
        lhs.from == rhs.from && lhs.to == rhs.to
    }
}

/// A recorder: a tap on an output bus, written to a file.
public struct RecorderSpec: Sendable {
    public var name: String
    public var source: BusReference
    /// Relative to the session file.
    public var file: String
    /// wav, aiff, caf, flac or ogg; from the file's extension when not written.
    public var format: String?
    /// float32, int16, int24 or int32; the container's own when not written.
    public var sampleType: String?
    /// TPDF dither into 16 or 24 bits; on when not written.
    public var dither: Bool?
    /// Ogg Vorbis quality, 0...1.
    public var quality: Double?
    /// The file's rate and width when not the bus's (the recorder converts).
    public var sampleRate: Double?
    public var channels: Int?
    public var location: SourceLocation
    public var positions = Positions()

    public init(name: String, source: BusReference, file: String, location: SourceLocation) {
        self.name = name
        self.source = source
        self.file = file
        self.location = location
    }
}

/// Where each field's value was written, by key.
public struct Positions: Sendable {
    private var table: [String: SourceLocation] = [:]

    public init() {}

    public subscript(key: String) -> SourceLocation? {
        get { table[key] }
        set { table[key] = newValue }
    }
}
