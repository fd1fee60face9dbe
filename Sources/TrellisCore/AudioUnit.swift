/// Everything one render call needs: how many frames, when, the buses, the events of
/// the call in time order and the host's time.
///
/// Inputs are already rendered (the program ran the unit's sources first) and must
/// not be written; every output channel must be filled for `frameCount` frames.
/// `segmentInputs` and `segmentOutputs` are scratch views shaped like the buses, which
/// `segment(from:to:)` points into the middle of a call.
public struct RenderContext: BitwiseCopyable {
    public var frameCount: Int
    public var timeStamp: AudioTimeStamp
    public var inputs: BusBuffers
    public var outputs: BusBuffers
    public var events: RenderEventList
    public var time: TimeContext
    public var segmentInputs: BusBuffers
    public var segmentOutputs: BusBuffers
    /// Where the kernel writes what it outputs on its MIDI output buses, in time order,
    /// offsets from the start of the whole call; emptied by the program before the call.
    public var midiOutputs: MIDIBuses

    @inlinable
    public init(
        frameCount: Int, timeStamp: AudioTimeStamp, inputs: BusBuffers, outputs: BusBuffers,
        events: RenderEventList = RenderEventList(base: nil, count: 0), time: TimeContext = TimeContext(),
        segmentInputs: BusBuffers = BusBuffers(buses: nil, count: 0), segmentOutputs: BusBuffers = BusBuffers(buses: nil, count: 0),
        midiOutputs: MIDIBuses = .none
    ) {
        self.frameCount = frameCount
        self.timeStamp = timeStamp
        self.inputs = inputs
        self.outputs = outputs
        self.events = events
        self.time = time
        self.segmentInputs = segmentInputs
        self.segmentOutputs = segmentOutputs
        self.midiOutputs = midiOutputs
    }

    /// Frames `start..<end` of this call as a call of their own, with no events: the
    /// buses are the segment views pointed `start` frames in. Thread: audio.
    @inlinable @inline(__always)
    public func segment(from start: Int, to end: Int) -> RenderContext {
        var part = self
        part.events = RenderEventList(base: nil, count: 0)
        part.frameCount = end - start
        guard start > 0 else { return part }
        part.timeStamp = timeStamp.advanced(by: start)
        part.time.transportFrame &+= time.isRolling ? Int64(start) : 0
        part.inputs = inputs.offset(by: start, into: segmentInputs)
        part.outputs = outputs.offset(by: start, into: segmentOutputs)
        return part
    }
}

/// Supplies a unit's input when the unit is pulled on its own, outside a graph: the
/// analog of Core Audio's render callback on an input element.
public protocol InputSource {
    /// Fills `buffers` with `frameCount` frames of input `bus`. Thread: audio.
    func pullInput(bus: Int, frameCount: Int, timeStamp: AudioTimeStamp, into buffers: AudioBuffers) -> RenderStatus
}

/// An input source with nothing to give: every pull is silence.
public struct SilentInput: InputSource {
    public init() {}
    public func pullInput(bus: Int, frameCount: Int, timeStamp: AudioTimeStamp, into buffers: AudioBuffers) -> RenderStatus {
        buffers.clear(frameCount: frameCount)
        return .ok
    }
}

/// What a unit is to the graph around it: an ordinary processor, or one of the ends a
/// graph compiler treats specially. The compiler asks for the role; it never compares
/// component descriptions.
public enum UnitRole: Sendable, Hashable {
    case processor
    /// Where a graph's own input enters (its head node's capture, or a subgraph's input buses).
    case graphInput
    /// Where a graph's result leaves, what a backend pulls.
    case graphOutput
    /// Where a backend's MIDI input port `port` (0-based) enters the graph: a node with
    /// one MIDI output bus.
    case midiInputPort(Int)
    /// Where MIDI leaves the graph for the backend's MIDI output port `port`: a node
    /// with one MIDI input bus.
    case midiOutputPort(Int)
}

/// A token that removes a listener when passed back to the unit.
public struct ListenerToken: Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
}

/// The contract every unit keeps: built-in DSP, hosted LV2 plugins and subgraphs.
///
/// Threads: configuration (formats, properties, element counts, initialize) is
/// control-thread work; `render`, `reset` while rendering and `applyParameterEvent`
/// are audio-thread work and never allocate, lock or block; parameters may be set from
/// any thread.
public protocol AudioUnit: AnyObject, Sendable {
    var componentDescription: ComponentDescription { get }
    /// A name for messages, e.g. `eq (aufx:nbeq:trls)`.
    var name: String { get }
    /// What the unit is to the graph around it. Thread: any.
    var role: UnitRole { get }
    /// Unique for the life of the process; routes parameter events. Thread: any.
    var unitID: UInt64 { get }

    /// Thread: control.
    func elementCount(_ scope: Scope) -> Int
    /// MIDI buses of a scope: MIDI inputs the unit takes, MIDI outputs it writes. They
    /// connect like audio buses but apart from them (see `Graph.connectMIDI`).
    /// Thread: control.
    func midiBusCount(_ scope: Scope) -> Int
    /// Names of the MIDI buses of a scope, for listings. Thread: control.
    func midiBusNames(_ scope: Scope) -> [String]
    /// Thread: control.
    func format(scope: Scope, element: Int) throws(AudioUnitError) -> StreamFormat
    /// Thread: control, while uninitialized.
    func setFormat(_ format: StreamFormat, scope: Scope, element: Int) throws(AudioUnitError)

    var isInitialized: Bool { get }
    /// The most frames one render call may ask for. Thread: any.
    var maximumFramesPerSlice: Int { get }
    /// Allocates everything rendering needs. Thread: control.
    func initialize() throws(AudioUnitError)
    /// Frees what `initialize` allocated. Thread: control, never while rendering.
    func uninitialize()
    /// Clears filter and delay state. Thread: audio while rendering, else control.
    func reset()
    /// Renders one slice by running the kernel outside a program (tests, standalone
    /// pulls). Thread: the one thread that renders the unit.
    func render(_ context: RenderContext) -> RenderStatus
    /// What a compiled program holds of the unit: its kernel, values and bypass flag.
    /// Valid from `initialize` to `uninitialize`. Thread: control.
    var realtime: UnitRealtime { get }

    /// Thread: control.
    func propertyInfo(_ id: PropertyID, scope: Scope, element: Int) throws(AudioUnitError) -> PropertyInfo
    /// Thread: control.
    func property(_ id: PropertyID, scope: Scope, element: Int) throws(AudioUnitError) -> PropertyValue
    /// Thread: control.
    func setProperty(_ id: PropertyID, _ value: PropertyValue, scope: Scope, element: Int) throws(AudioUnitError)
    /// Calls `listener` on the control thread after the property changes. Thread: control.
    @discardableResult
    func addPropertyListener(_ listener: @escaping @Sendable (PropertyID, Scope, Int) -> Void) -> ListenerToken
    func removeListener(_ token: ListenerToken)

    /// Every parameter in every scope. Thread: control.
    var parameters: [ParameterInfo] { get }
    /// Thread: any.
    func parameterValue(_ address: ParameterAddress) throws(AudioUnitError) -> Float
    /// The one control-side change: rejects a read-only parameter and a value outside its
    /// range; while the unit is rendering, the change travels to the audio thread through
    /// the engine's queue, to apply at `sampleTime` (the next cycle when nil). Thread: any.
    func setParameter(_ address: ParameterAddress, _ value: Float, rampFrames: Int, atSampleTime sampleTime: Int64?) throws(AudioUnitError)
    /// Calls `listener` on the setting thread after a parameter changes. Thread: control.
    @discardableResult
    func addParameterListener(_ listener: @escaping @Sendable (ParameterInfo, Float) -> Void) -> ListenerToken
    /// Applies a change at the current position of a render outside a program.
    /// Thread: the one thread that renders the unit.
    func applyParameterEvent(index: Int, value: Float, rampFrames: Int)

    /// Processing delay in frames at the current sample rate. Thread: any.
    var latencyFrames: Int { get }
    /// How long output continues after input stops, in seconds. Thread: any.
    var tailTime: Double { get }
    /// When true the engine passes input to output instead of rendering. Thread: any.
    var isBypassed: Bool { get }
}
