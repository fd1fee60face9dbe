import TrellisCore

/// A compiled graph as plain data: which buffers each bus uses, which units run in
/// which order, which delays and conversions the compiler inserted. The graph compiler
/// makes a plan; `RenderProgram` turns it into memory the audio thread can run.
public struct ProgramPlan: Sendable {
    /// One step of the program.
    public enum Operation: Sendable, Hashable, BitwiseCopyable {
        /// Copies the backend's input channels from `firstChannel` on into a bus
        /// (silence where the input has fewer channels).
        case fillInput(bus: Int32, firstChannel: Int32)
        /// Runs unit `unit` over its planned buses.
        case render(unit: Int32)
        /// Copies channel by channel.
        case copy(from: Int32, to: Int32)
        /// Maps channels between buses of different width: mono is copied to every
        /// channel, several channels to mono are averaged, otherwise channel i to i.
        case convertChannels(from: Int32, to: Int32)
        /// Delays a bus by a compensating delay line.
        case delay(line: Int32, from: Int32, to: Int32)
        /// Copies a bus to the backend's output.
        case emitOutput(bus: Int32)
        /// Shows a bus to an observer (a tap, a meter, a recorder).
        case observe(observer: Int32, bus: Int32)
        /// Copies the backend's MIDI input port `port` into MIDI buffer `buffer`.
        case fillMIDI(port: Int32, buffer: Int32)
        /// Merges what feeds MIDI sink `sink` into its backend MIDI output port.
        case emitMIDI(sink: Int32)
    }

    /// A MIDI buffer that feeds a MIDI input bus: the merge tags its events with `bus`.
    public struct MIDISource: Sendable, Hashable {
        public var buffer: Int
        public var bus: Int
        public init(buffer: Int, bus: Int) {
            self.buffer = buffer
            self.bus = bus
        }
    }

    /// A backend MIDI output port and the MIDI buffers merged into it.
    public struct MIDISink: Sendable, Hashable {
        public var port: Int
        public var name: String
        public var sources: [Int]
        public init(port: Int, name: String, sources: [Int]) {
            self.port = port
            self.name = name
            self.sources = sources
        }
    }

    /// A bus: one pool buffer per channel; `silence` marks the shared zero buffer.
    public struct Bus: Sendable, Hashable {
        public var buffers: [Int]
        /// The bus whose buffers this one names (a multi-mono instance's channel), so
        /// both are one memory: that bus's channels must stay in the pool.
        public var viewOf: Int?
        public init(buffers: [Int], viewOf: Int? = nil) {
            self.buffers = buffers
            self.viewOf = viewOf
        }
        public var channelCount: Int { buffers.count }
    }

    public struct PlannedUnit: @unchecked Sendable {
        public var unit: any AudioUnit
        /// Where messages and printouts name it, e.g. `mix/eq1`.
        public var name: String
        public var inputs: [Int]
        public var outputs: [Int]
        /// How its outputs are checked for NaN and infinity after each render.
        public var outputCheck: OutputCheck
        /// On non-finite output, clear the kernel's state and run it again next cycle
        /// (built-in kernels, whose reset is real-time safe) instead of silencing it for
        /// good (plugins).
        public var resetsOnFault: Bool
        /// The MIDI buffers its MIDI input buses hear, merged into its event list.
        public var midiInputs: [MIDISource]
        /// Its MIDI output buses' buffers: consecutive, one per bus.
        public var midiOutputs: [Int]
        /// What the program runs, when not the unit's own kernel: an instance of a
        /// multi-mono unit, laid out by the compiler.
        public var realtime: UnitRealtime?
        /// The planned unit whose events this one takes (an instance takes its unit's);
        /// nil for its own.
        public var eventsOf: Int?

        public init(
            unit: any AudioUnit, name: String, inputs: [Int], outputs: [Int], checksOutput: Bool = true,
            midiInputs: [MIDISource] = [], midiOutputs: [Int] = [], realtime: UnitRealtime? = nil, eventsOf: Int? = nil
        ) {
            self.realtime = realtime
            self.eventsOf = eventsOf
            self.unit = unit
            self.name = name
            self.inputs = inputs
            self.outputs = outputs
            outputCheck = checksOutput ? OutputCheck(for: unit) : .none
            resetsOnFault = unit.componentDescription.manufacturer == Manufacturer.trellis
            self.midiInputs = midiInputs
            self.midiOutputs = midiOutputs
        }
    }

    public struct DelayLine: Sendable, Hashable {
        public var frames: Int
        public var channelCount: Int
        /// What it compensates, for the printout.
        public var reason: String
        /// Names the input it feeds; the next program keeps a delay of the same key and
        /// size running (see `RenderProgram.init(plan:maximumFrames:continuing:)`).
        public var key: String
        public init(frames: Int, channelCount: Int, reason: String, key: String = "") {
            self.frames = frames
            self.channelCount = channelCount
            self.reason = reason
            self.key = key
        }
    }

    public static let silence = -1

    public var bufferCount = 0
    public var buses: [Bus] = []
    public var units: [PlannedUnit] = []
    public var delays: [DelayLine] = []
    /// Observers shown buses by `observe` steps, with what they watch, for the listing.
    public var observers: [(observer: any BusObserver, watches: String)] = []
    public var operations: [Operation] = []
    /// MIDI buffers: one per MIDI output bus of a unit and per MIDI input port, never
    /// shared (MIDI is small, and fan-out reads one buffer from several places).
    public var midiBufferCount = 0
    /// What each MIDI buffer carries, for the listing: `arp midi output 0`.
    public var midiBufferNames: [String] = []
    public var midiSinks: [MIDISink] = []
    /// Channels the backend's input and output carry.
    public var inputChannelCount = 0
    public var outputChannelCount = 0
    /// Frames from the graph's input to its output along the slowest path.
    public var latency = 0
    /// Parameter lanes the transport plays.
    public var automation: [AutomationLane] = []
    /// Controllers mapped to parameters and bypasses.
    public var midiMappings: [MIDIMapping] = []
    /// Every unit's latency as this plan compensates it, with its node's name.
    public var compensatedLatencies: [(unit: any AudioUnit, node: String, frames: Int)] = []

    public init() {}

    /// Adds a bus and returns its index.
    public mutating func addBus(buffers: [Int], viewOf: Int? = nil) -> Int {
        buses.append(Bus(buffers: buffers, viewOf: viewOf))
        return buses.count - 1
    }

    /// Adds a MIDI buffer and returns its index.
    public mutating func addMIDIBuffer(named name: String) -> Int {
        midiBufferNames.append(name)
        midiBufferCount += 1
        return midiBufferCount - 1
    }

    /// A readable listing: order, buffers, inserted delays and conversions.
    public var listing: String {
        func bus(_ index: Int32) -> String {
            let buffers = buses[Int(index)].buffers.map { $0 == Self.silence ? "0" : "b\($0)" }
            return "#\(index)[\(buffers.joined(separator: ","))]"
        }
        func midi(_ buffers: [Int]) -> String { buffers.map { "m\($0)" }.joined(separator: " ") }
        var header = "program: \(operations.count) steps, \(bufferCount) buffers, \(delays.count) delays, latency \(latency) frames"
        if midiBufferCount > 0 { header += ", \(midiBufferCount) MIDI buffers" }
        var lines = [header]
        for (step, operation) in operations.enumerated() {
            let text: String
            switch operation {
            case .fillInput(let b, let first): text = "input channel \(first)... -> \(bus(b))"
            case .render(let u):
                let unit = units[Int(u)]
                let ins = unit.inputs.map { bus(Int32($0)) }.joined(separator: " ")
                let outs = unit.outputs.map { bus(Int32($0)) }.joined(separator: " ")
                text = "render \(unit.name) (\(unit.unit.componentDescription)) in: \(ins.isEmpty ? "-" : ins) out: \(outs.isEmpty ? "-" : outs)"
                    + (unit.midiInputs.isEmpty ? "" : " midi in: " + unit.midiInputs.map { "m\($0.buffer)>\($0.bus)" }.joined(separator: " "))
                    + (unit.midiOutputs.isEmpty ? "" : " midi out: " + midi(unit.midiOutputs))
            case .copy(let from, let to): text = "copy \(bus(from)) -> \(bus(to))"
            case .convertChannels(let from, let to): text = "convert \(bus(from)) -> \(bus(to))"
            case .delay(let line, let from, let to):
                let delay = delays[Int(line)]
                text = "delay \(delay.frames) frames \(bus(from)) -> \(bus(to)) (\(delay.reason))"
            case .emitOutput(let b): text = "\(bus(b)) -> output"
            case .observe(let observer, let b): text = "observe \(bus(b)) (\(observers[Int(observer)].watches))"
            case .fillMIDI(let port, let buffer): text = "midi input port \(port) -> m\(buffer) (\(midiBufferNames[Int(buffer)]))"
            case .emitMIDI(let index):
                let sink = midiSinks[Int(index)]
                text = "\(sink.sources.isEmpty ? "-" : midi(sink.sources)) -> midi output port \(sink.port) (\(sink.name))"
            }
            lines.append("  \(step): \(text)")
        }
        return lines.joined(separator: "\n")
    }
}

/// How much of a unit's output the program checks for NaN and infinity, by what the unit
/// can do with them. Every sample where non-finite values enter the graph: plugins
/// (third-party code, silenced for the program) and generators (a player reads files
/// that may hold them). The last frame of each channel for the other built-in units:
/// what they make non-finite from finite input is an overflow that poisons their state,
/// and a poisoned filter's last frame is non-finite too, so a probe finds it for a few
/// loads instead of a pass over every sample. What reaches the graph's output is
/// checked in full there (`emitOutput`), so nothing non-finite is written or played.
public enum OutputCheck: UInt8, Sendable, BitwiseCopyable {
    case none, lastFrames, everySample

    public init(for unit: any AudioUnit) {
        let description = unit.componentDescription
        let entersGraph = description.manufacturer != Manufacturer.trellis || description.type == ComponentType.generator
        self = entersGraph ? .everySample : .lastFrames
    }
}
