import TrellisCore

/// A notification from the audio thread, told on the control side in the terms of the
/// program that produced it: which node, which unit, when. What notice listeners get.
public struct EngineNotice: Sendable {
    public var kind: EngineNotification.Kind
    /// The unit's id, 0 for notices about the engine as a whole.
    public var unitID: UInt64
    /// The render clock's sample time of the cycle that raised it, of a MIDI
    /// message's frame; -1 when unknown (log lines).
    public var sampleTime: Int64
    /// The unit, as the published program named it; nil for engine-wide notices and for
    /// units the engine no longer remembers.
    public var unit: UnitLabel?
    /// What the unit said, for `.log` and `.midiOutput`; for `.messagesDropped`, nil
    /// and `dropped` counts them.
    public var message: UnitMessage?
    public var dropped: Int
    /// For `.latencyChanged`: the frames the old program compensated and the unit's
    /// latency now.
    public var latencyChange: (from: Int, to: Int)?

    public init(
        kind: EngineNotification.Kind, unitID: UInt64, sampleTime: Int64, unit: UnitLabel?,
        message: UnitMessage? = nil, dropped: Int = 0, latencyChange: (from: Int, to: Int)? = nil
    ) {
        self.latencyChange = latencyChange
        self.kind = kind
        self.unitID = unitID
        self.sampleTime = sampleTime
        self.unit = unit
        self.message = message
        self.dropped = dropped
    }

    /// The sample time in seconds, when the unit's rate is known.
    public var seconds: Double? {
        guard let rate = unit?.sampleRate, rate > 0, sampleTime >= 0 else { return nil }
        return Double(sampleTime) / rate
    }
}

/// How a published program names one of its units.
public struct UnitLabel: Sendable, Hashable {
    /// The node's name in the program, e.g. `mix/fx1` for a node inside a subgraph.
    public var node: String
    public var componentDescription: ComponentDescription
    /// The rate the unit runs at; 0 when it reports none.
    public var sampleRate: Double
    /// Its MIDI output buses' names.
    public var midiOutputs: [String]

    public init(node: String, description: ComponentDescription, sampleRate: Double, midiOutputs: [String] = []) {
        self.node = node
        self.componentDescription = description
        self.sampleRate = sampleRate
        self.midiOutputs = midiOutputs
    }
}

/// The labels of the units of recently published programs, by unit id. A notice can
/// be read after its program was replaced, so a unit's label stays for
/// `keptPublishes` publishes after the last program that ran it.
struct UnitLabels {
    static let keptPublishes: UInt64 = 8

    private var entries: [UInt64: (label: UnitLabel, generation: UInt64, source: WeakMessageSource?)] = [:]

    /// Thread: control (allocates).
    mutating func record(_ plan: ProgramPlan, generation: UInt64) {
        for planned in plan.units {
            let unit = planned.unit
            let rate = (unit.elementCount(.output) > 0 ? try? unit.format(scope: .output, element: 0).sampleRate : nil)
                ?? (unit.elementCount(.input) > 0 ? try? unit.format(scope: .input, element: 0).sampleRate : nil)
                ?? (unit as? AudioUnitBase)?.sampleRate
                ?? 0
            let label = UnitLabel(
                node: planned.name, description: unit.componentDescription, sampleRate: rate,
                midiOutputs: unit.midiBusNames(.output))
            let source = (unit as? any UnitMessageSource).map(WeakMessageSource.init)
            entries[unit.unitID] = (label, generation, source)
        }
        if generation > Self.keptPublishes {
            entries = entries.filter { $0.value.generation > generation - Self.keptPublishes }
        }
    }

    func label(of unitID: UInt64) -> UnitLabel? { entries[unitID]?.label }

    /// The units of recent programs that leave messages, with their labels.
    func messageSources() -> [(unitID: UInt64, label: UnitLabel, source: any UnitMessageSource)] {
        entries.compactMap { unitID, entry in
            entry.source?.source.map { (unitID, entry.label, $0) }
        }
    }
}

/// Recent programs' units are remembered without keeping them alive.
struct WeakMessageSource {
    weak var source: (any UnitMessageSource)?
}

/// What the audio thread reports to the control side.
public struct EngineNotification: BitwiseCopyable, Sendable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        /// A unit produced NaN or infinity; it was silenced (count 1: and reset, to play
        /// again once its output is finite).
        case nonFiniteOutput
        /// The parameter queue was full; values will land when it drains.
        case parameterQueueFull
        /// A new program was adopted.
        case programSwapped
        /// A unit logged a line (raised by the finish service, from the unit's rings).
        case log
        /// A unit sent a MIDI message on one of its MIDI outputs (finish service).
        case midiOutput
        /// A unit's message rings were full; some lines or MIDI were lost (finish service).
        case messagesDropped
        /// MIDI buffers were full this cycle: `count` messages a unit sent (or, with unit
        /// id 0, the backend's MIDI input or output carried) were dropped.
        case midiDropped
        /// A unit's latency changed and the graph was compiled again to compensate it
        /// (raised on the control side, never by the audio thread).
        case latencyChanged
        /// A unit stopped working (its process crashed or missed its deadline) and is
        /// silenced (finish service).
        case unitFailed
        /// A unit's process answered cycles past their deadline; they were output as
        /// on a fault, and it plays on (finish service).
        case unitLate
    }
    public var kind: Kind
    public var unitID: UInt64
    public var sampleTime: Int64
    public var count: Int32 = 0
}
