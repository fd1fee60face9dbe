import TrellisCore
import TrellisSession

/// One command of the control protocol, parsed and checked for form but not yet run.
/// Every transport (the line protocol, JSON lines, OSC) produces these; the dispatcher
/// runs them. Thread: any (a plain value).
public enum ControlCommand: Sendable, Equatable {
    case hello
    case help(command: String?)
    case list
    /// The whole desk in one reply: nodes with their buses, parameters' holders,
    /// subgraphs, connections, compensating delays, players and recorders.
    case describe
    /// The units that can be added, all or those whose names hold the text.
    case units(matching: String?)
    /// The recorders' takes on disk.
    case takes
    case add(node: String, unit: String, parameters: [ParameterAssignment])
    case remove(node: String)
    case connect(from: BusName, to: BusName, convert: Bool)
    /// `from` is optional: an input bus has at most one connection.
    case disconnect(from: BusName?, to: BusName)
    case set(node: String, parameter: String, value: String, rampMilliseconds: Double?)
    case get(node: String, parameter: String)
    case params(node: String)
    case bypass(node: String, on: Bool)
    /// Starts a node's plugin process again (`isolate`), from its last saved state.
    case restart(node: String)
    /// Every property of a node with its value, in each scope and element it has.
    case properties(node: String)
    case propertyGet(node: String, name: String, PropertyPlace)
    case propertySet(node: String, name: String, value: String, PropertyPlace)
    /// Loads a preset by name or number; with no name, lists the node's presets.
    case preset(node: String, name: String?)
    /// `preset save NODE NAME`: the node's state as a user preset.
    case presetSave(node: String, name: String)
    /// `meter BUS [loudness [reset]]`: levels, or EBU R128 loudness (and starting it over).
    case meter(BusName, loudness: MeterLoudness?)
    case transport(TransportAction, node: String)
    /// `play A B ... [at SAMPLETIME]`: players started on one frame.
    case playTogether(nodes: [String], at: PlayStart?)
    case position(node: String)
    /// `tap add NODE.BUS FILE [overwrite]`: records a bus of the running graph to a file.
    case tapAdd(BusName, path: String, overwrite: Bool, settings: FileSettings = FileSettings())
    /// `tap remove NODE.BUS`: finishes that tap's file.
    case tapRemove(BusName)
    /// Streams a bus to this connection as raw float frames, for `seconds` or until it closes.
    case tapStream(BusName, seconds: Double?)
    /// `record start|stop|pause|resume [RECORDER] [for SECONDS] [overwrite]`.
    case record(RecordAction, recorder: String?, seconds: Double? = nil, overwrite: Bool = false)
    case save(path: String?)
    /// `file NODE NAME PATH`: a file for the node's plugin (see `FileTakingUnit`).
    case file(node: String, name: String, path: String)
    /// `save --bundle FOLDER`: the session and every file its nodes play or take.
    case saveBundle(folder: String)
    case load(path: String)
    case jackConnect(port: String, peer: String)
    case jackDisconnect(port: String, peer: String)
    /// `status [peek]`: with peek, the DSP load's and peaks' windows stay open.
    case status(peek: Bool)
    /// The compiled program the audio thread runs, step by step.
    case program
    case watch(WatchRequest)
    case unwatch
    case mode(ControlMode)
    case bye
    /// Takes back the last edit made through the protocol, or makes it again.
    case undo, redo
    /// `transport [play|stop|locate TIME|tempo BPM|meter N/D]`: the session's clock.
    case clock(ClockRequest)
    /// `automate NODE PARAM TIME VALUE [TIME VALUE ...] [step]`: a parameter's lane.
    case automate(node: String, parameter: String, points: [LanePoint], stepped: Bool)
    /// `automate clear [NODE [PARAM]]`.
    case automateClear(node: String?, parameter: String?)
    /// `learn NODE PARAM|bypass [MIN MAX]`: maps the next controller moved.
    case learn(node: String, parameter: String, minimum: String?, maximum: String?)
    /// `learn clear [NODE [PARAM]]`.
    case unlearn(node: String?, parameter: String?)
    /// `learn`: the controllers mapped.
    case mappings
    /// `add`, `remove`, `connect` and `disconnect` joined by ` ; ` on one line: applied
    /// as one transaction, so a chain is rewired with one program swap.
    case batch([ControlCommand])
}

/// `node` or `node.bus`, as a command names it: a session's bus reference.
public typealias BusName = BusReference

/// Where a property is read or written: a scope and an element, each left to the
/// property's usual place when not given.
public struct PropertyPlace: Sendable, Equatable {
    public var scope: Scope?
    public var element: Int?

    public init(scope: Scope?, element: Int?) {
        self.scope = scope
        self.element = element
    }
}

/// A point of a lane as a command writes it: a position and a value in the
/// parameter's own terms.
public struct LanePoint: Sendable, Equatable {
    public var time: TransportTime
    public var value: String

    public init(time: TransportTime, value: String) {
        self.time = time
        self.value = value
    }
}

/// What `transport` asks of the session's clock.
public enum ClockRequest: Sendable, Equatable {
    case show
    case play
    case stop
    case locate(TransportTime)
    case tempo(Double)
    case meter(beatsPerBar: Int, beatUnit: Int)
}

/// `name=value` in `add`.
public struct ParameterAssignment: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// What a player command asks for.
/// What a tap's file holds where it should not be the container's own best (`tap add
/// ... sample-type=int16 dither=off quality=0.4 sample-rate=44100 channels=1`): the
/// keys of a session's recorder. Nil: the default.
public struct FileSettings: Sendable, Equatable {
    public var sampleType: SampleType?
    public var dither: Bool?
    public var quality: Double?
    public var sampleRate: Double?
    public var channels: Int?

    public init() {}

    public static let keys = ["sample-type", "dither", "quality", "sample-rate", "channels"]
}

/// When `play ... at` starts: a graph sample time, a graph time in seconds (`at 12.5s`),
/// or seconds from now (`at +2`).
public enum PlayStart: Sendable, Equatable {
    case sampleTime(Int64)
    case seconds(Double)
    case fromNow(Double)
}

public enum RecordAction: String, Sendable, Equatable {
    case start, stop, pause, resume, meter
}

public enum TransportAction: Sendable, Equatable {
    case play, pause, stop
    case seek(seconds: Double)

    public var verb: String {
        switch self {
        case .play: "play"
        case .pause: "pause"
        case .stop: "stop"
        case .seek: "seek"
        }
    }
}

/// How a connection's lines are read and written.
public enum ControlMode: String, Sendable, Equatable {
    case text
    case json
}

/// What a `watch` subscribes to: event kinds, and meters sent at `rate` per second.
public struct WatchRequest: Sendable, Equatable {
    public var kinds: Set<ControlEventKind>
    public var meters: [BusName]
    /// Whether each meter reading carries the bus's loudness too.
    public var loudness = false
    /// Buses read every other frame, at half of `rate`: a desk's small overview bars.
    public var slowMeters: [BusName] = []
    public var rate: Double
    /// Seconds between `time` events from each playing file player (AVPlayer's periodic
    /// time observer); nil for none.
    public var timeInterval: Double?
    /// File times, in seconds, at which each player sends a `boundary` event as it
    /// plays past them (AVPlayer's boundary time observer).
    public var boundaries: [Double] = []

    public init(kinds: Set<ControlEventKind> = ControlEventKind.unnamed, meters: [BusName] = [], rate: Double = 10) {
        self.kinds = kinds
        self.meters = meters
        self.rate = rate
    }
}

/// The kinds of notification `watch` streams.
public enum ControlEventKind: String, Sendable, CaseIterable, Hashable {
    case meter, xrun, interruption, route, eof, jack, graph, warning, log, midi, time, boundary, record, property, transport
    /// A parameter's value changed, whoever changed it (a client, MIDI learn, automation).
    case parameter
    /// A command changed the graph or its settings: what `describe` answers has changed.
    case edit

    /// What a `watch` without `events=` streams: every kind but the busy ones a desk
    /// asks for by name (a moving fader makes dozens of `parameter` events a second).
    public static let unnamed: Set<ControlEventKind> = Set(allCases).subtracting([.parameter, .edit])
}

/// What `meter BUS loudness` asks of a bus's EBU R128 meter.
public enum MeterLoudness: Sendable, Equatable {
    case read, reset
}
