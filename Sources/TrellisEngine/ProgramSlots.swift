import TrellisCore

/// What every step of one cycle reads from the backend and the engine.
struct CycleArguments {
    var frameCount: Int
    var timeStamp: AudioTimeStamp
    var time: TimeContext
    var input: AudioBuffers
    var output: AudioBuffers
    var events: UnsafeMutablePointer<RenderEvent>?
    var midiInput: MIDIInputView?
    var midiOutput: MIDIBuses
}

/// One thread's place in a program: where it merges a unit's events with its MIDI, and
/// where it reports faults (the engine's ring for the audio thread, a ring of its own
/// for a worker, emptied into the engine's at the end of the cycle).
struct RenderLane {
    let mergeRuns: UnsafeMutablePointer<MergeRun>
    let merged: UnsafeMutablePointer<RenderEvent>
    var faults: SPSCRingEnd<EngineNotification>?
}

/// An event due in the current cycle, resolved to a slot of the program.
public struct DueEvent: BitwiseCopyable {
    public var slot: Int32
    public var event: RenderEvent
}

/// One unit's place in a program: its kernel and buses, as plain memory.
struct UnitSlot: BitwiseCopyable {
    let unit: UnitRealtime
    let inputs: BusBuffers
    let outputs: BusBuffers
    let segmentInputs: BusBuffers
    let segmentOutputs: BusBuffers
    let outputCheck: OutputCheck
    let resetsOnFault: Bool
    let midiOutputs: MIDIBuses
    let midiSourceStart: Int32
    let midiSourceCount: Int32
    /// The slot whose events this one takes: itself, or its unit's for an instance.
    let eventSlot: Int32
    var faulted = false
    /// Reset after non-finite output and not finite since: reported once, not per cycle.
    var recovering = false
    var eventStart: Int32 = 0
    var eventCount: Int32 = 0

    init(
        unit: UnitRealtime, inputs: BusBuffers, outputs: BusBuffers, segmentInputs: BusBuffers, segmentOutputs: BusBuffers,
        outputCheck: OutputCheck, resetsOnFault: Bool, midiOutputs: MIDIBuses, midiSourceStart: Int32, midiSourceCount: Int32, eventSlot: Int32
    ) {
        self.resetsOnFault = resetsOnFault
        self.eventSlot = eventSlot
        self.midiOutputs = midiOutputs
        self.midiSourceStart = midiSourceStart
        self.midiSourceCount = midiSourceCount
        self.unit = unit
        self.inputs = inputs
        self.outputs = outputs
        self.segmentInputs = segmentInputs
        self.segmentOutputs = segmentOutputs
        self.outputCheck = outputCheck
    }
}

struct UnitLookupEntry {
    var unitID: UInt64
    var slot: Int32
}
