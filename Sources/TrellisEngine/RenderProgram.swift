import TrellisCore

/// A plan turned into memory: every buffer, view and delay line allocated once, so
/// running it touches no allocator. Made and freed on the control side; run on the
/// audio thread, or on any single thread for an offline render.
public final class RenderProgram: @unchecked Sendable {
    public let plan: ProgramPlan
    public let maximumFrames: Int

    private let pool: UnsafeMutablePointer<Float>
    private let silence: UnsafeMutablePointer<Float>
    private let channelTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let busViews: UnsafeMutablePointer<AudioBuffers>
    private let slots: UnsafeMutablePointer<UnitSlot>
    private let unitViews: UnsafeMutablePointer<AudioBuffers>
    private let segmentViews: UnsafeMutablePointer<AudioBuffers>
    private let segmentChannels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let operations: UnsafeMutablePointer<ProgramPlan.Operation>
    private let delayLines: UnsafeMutablePointer<DelayLineState>
    /// Owns the delay lines' memory (shared with the programs before and after this one).
    private let delayStorage: [DelayLineStorage]
    private let lookup: UnsafeMutablePointer<UnitLookupEntry>
    private let observers: UnsafeMutablePointer<ObserverKernel>
    /// Bridges for observers without a kernel of their own.
    private let bridgedObservers: UnsafeMutablePointer<BridgedObserver>
    /// Slots of the units that take MIDI.
    private let midiReceivers: UnsafeMutablePointer<Int32>
    let midiReceiverCount: Int
    let unitCount: Int
    private let operationCount: Int
    private let delayCount: Int
    private let outputChannelCount: Int
    private let totalChannels: Int
    private let totalUnitBuses: Int
    private let totalUnitChannels: Int

    /// Allocates everything `plan` needs for slices of up to `maximumFrames`. The
    /// plan's units must be initialized. Delay lines that `previous` runs with the same
    /// key and size are shared, not made anew, so the audio in them carries over the swap.
    /// Thread: control.
    public init(plan: ProgramPlan, maximumFrames: Int, continuing previous: RenderProgram? = nil) {
        self.plan = plan
        self.maximumFrames = maximumFrames
        let stride = (maximumFrames + 15) & ~15
        pool = .allocate(capacity: (plan.bufferCount + 1) * stride)
        pool.initialize(repeating: 0, count: (plan.bufferCount + 1) * stride)
        let pool = self.pool, silence = pool + plan.bufferCount * stride
        self.silence = silence

        func pointer(_ buffer: Int) -> UnsafeMutablePointer<Float> {
            buffer == ProgramPlan.silence ? silence : pool + buffer * stride
        }

        totalChannels = plan.buses.reduce(0) { $0 + $1.channelCount }
        channelTable = .allocate(capacity: max(1, totalChannels))
        busViews = .allocate(capacity: max(1, plan.buses.count))
        var next = 0
        for (index, bus) in plan.buses.enumerated() {
            let first = channelTable + next
            for (channel, buffer) in bus.buffers.enumerated() { (first + channel).initialize(to: pointer(buffer)) }
            (busViews + index).initialize(to: AudioBuffers(channelPointers: UnsafePointer(first), channelCount: bus.channelCount))
            next += bus.channelCount
        }

        totalUnitBuses = plan.units.reduce(0) { $0 + $1.inputs.count + $1.outputs.count }
        totalUnitChannels = plan.units.reduce(0) { total, unit in
            total + (unit.inputs + unit.outputs).reduce(0) { $0 + plan.buses[$1].channelCount }
        }
        unitViews = .allocate(capacity: max(1, totalUnitBuses))
        segmentViews = .allocate(capacity: max(1, totalUnitBuses))
        segmentChannels = .allocate(capacity: max(1, totalUnitChannels))
        segmentChannels.initialize(repeating: silence, count: max(1, totalUnitChannels))
        slots = .allocate(capacity: max(1, plan.units.count))
        var viewIndex = 0, segmentChannel = 0
        for (index, planned) in plan.units.enumerated() {
            let first = viewIndex
            for bus in planned.inputs + planned.outputs {
                (unitViews + viewIndex).initialize(to: busViews[bus])
                let channels = plan.buses[bus].channelCount
                (segmentViews + viewIndex).initialize(
                    to: AudioBuffers(channelPointers: UnsafePointer(segmentChannels + segmentChannel), channelCount: channels))
                segmentChannel += channels
                viewIndex += 1
            }
            let inputCount = planned.inputs.count, outputCount = planned.outputs.count
            (slots + index).initialize(to: UnitSlot(
                unit: planned.unit.realtime,
                inputs: BusBuffers(buses: UnsafePointer(unitViews + first), count: inputCount),
                outputs: BusBuffers(buses: UnsafePointer(unitViews + first + inputCount), count: outputCount),
                segmentInputs: BusBuffers(buses: UnsafePointer(segmentViews + first), count: inputCount),
                segmentOutputs: BusBuffers(buses: UnsafePointer(segmentViews + first + inputCount), count: outputCount),
                checkOutput: planned.checkOutput))
        }

        operations = .allocate(capacity: max(1, plan.operations.count))
        operations.initialize(from: plan.operations, count: plan.operations.count)

        var available = previous?.delayStorage ?? []
        delayStorage = plan.delays.map { delay in
            if !delay.key.isEmpty, let index = available.firstIndex(where: { $0.fits(delay) }) {
                return available.remove(at: index)
            }
            return DelayLineStorage(key: delay.key, frames: delay.frames, channelCount: delay.channelCount)
        }
        delayLines = .allocate(capacity: max(1, plan.delays.count))
        for (index, storage) in delayStorage.enumerated() {
            (delayLines + index).initialize(to: DelayLineState(storage))
        }

        let entries = plan.units.enumerated().map { UnitLookupEntry(unitID: $1.unit.unitID, slot: Int32($0)) }
            .sorted { $0.unitID < $1.unitID }
        lookup = .allocate(capacity: max(1, entries.count))
        lookup.initialize(from: entries, count: entries.count)

        let receivers = plan.units.indices.filter { (plan.units[$0].unit as? any MIDIReceiver)?.acceptsMIDI ?? false }
        midiReceiverCount = receivers.count
        midiReceivers = .allocate(capacity: max(1, receivers.count))
        for (index, slot) in receivers.enumerated() { (midiReceivers + index).initialize(to: Int32(slot)) }
        unitCount = plan.units.count
        operationCount = plan.operations.count
        delayCount = plan.delays.count
        outputChannelCount = plan.outputChannelCount

        observers = .allocate(capacity: max(1, plan.observers.count))
        bridgedObservers = .allocate(capacity: max(1, plan.observers.count))
        for (index, entry) in plan.observers.enumerated() {
            (bridgedObservers + index).initialize(to: BridgedObserver(observer: entry.observer))
            (observers + index).initialize(to: entry.observer.observerKernel
                ?? ObserverKernel(state: UnsafeMutableRawPointer(bridgedObservers + index), observe: BridgedObserver.entry))
        }
    }

    deinit {
        pool.deallocate()
        channelTable.deallocate()
        busViews.deallocate()
        slots.deinitialize(count: plan.units.count)
        slots.deallocate()
        unitViews.deallocate()
        segmentViews.deallocate()
        segmentChannels.deallocate()
        operations.deallocate()
        delayLines.deallocate()
        lookup.deallocate()
        observers.deallocate()
        bridgedObservers.deallocate()
        midiReceivers.deallocate()
    }

    /// The listing of the plan.
    public var listing: String { plan.listing }

    /// The slot of a unit in this program, or -1. Thread: any.
    @inline(__always)
    func slot(of unitID: UInt64) -> Int32 {
        var low = 0, high = unitCount - 1
        while low <= high {
            let middle = (low + high) >> 1
            let entry = lookup[middle]
            if entry.unitID == unitID { return entry.slot }
            if entry.unitID < unitID { low = middle + 1 } else { high = middle - 1 }
        }
        return -1
    }

    /// Runs the program once. `events` holds the cycle's kernel events grouped by slot
    /// in time order, each slot's range set by `assignEvents`. Thread: audio (or one
    /// offline thread).
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    public func run(
        frameCount: Int,
        timeStamp: AudioTimeStamp,
        time: TimeContext = TimeContext(),
        input: AudioBuffers,
        output: AudioBuffers,
        events: UnsafeMutablePointer<RenderEvent>? = nil,
        faults: SPSCRingEnd<EngineNotification>? = nil
    ) -> RenderStatus {
        guard frameCount <= maximumFrames else { return .tooManyFrames }
        for step in 0..<operationCount {
            switch operations[step] {
            case .fillInput(let bus, let firstChannel):
                let destination = busViews[Int(bus)]
                for channel in 0..<destination.channelCount {
                    let source = Int(firstChannel) + channel
                    if source < input.channelCount {
                        copySamples(from: input[source], to: destination[channel], count: frameCount)
                    } else {
                        destination[channel].update(repeating: 0, count: frameCount)
                    }
                }
            case .render(let unit):
                renderUnit(Int(unit), frameCount: frameCount, timeStamp: timeStamp, time: time, events: events, faults: faults)
            case .copy(let from, let to):
                busViews[Int(to)].copy(from: busViews[Int(from)], frameCount: frameCount)
            case .convertChannels(let from, let to):
                convertChannels(from: busViews[Int(from)], to: busViews[Int(to)], frameCount: frameCount)
            case .delay(let line, let from, let to):
                delayLines[Int(line)].process(from: busViews[Int(from)], to: busViews[Int(to)], frameCount: frameCount)
            case .emitOutput(let bus):
                output.copy(from: busViews[Int(bus)], frameCount: frameCount)
            case .observe(let observer, let bus):
                var slice = ObservedSlice(bus: busViews[Int(bus)], frameCount: frameCount, timeStamp: timeStamp)
                observers[Int(observer)].observe(&slice)
            }
        }
        for slot in 0..<unitCount { slots[slot].eventCount = 0 }
        if outputChannelCount == 0 { output.clear(frameCount: frameCount) }
        return .ok
    }

    /// Records, for each slot, which of `events` (grouped by slot) belong to it.
    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func assignEvents(_ due: UnsafeMutablePointer<DueEvent>, count: Int) {
        var index = 0
        while index < count {
            let slot = Int(due[index].slot)
            let start = index
            while index < count && Int(due[index].slot) == slot { index += 1 }
            slots[slot].eventStart = Int32(start)
            slots[slot].eventCount = Int32(index - start)
        }
    }

    /// The slot of the `index`th unit that takes MIDI. Thread: audio.
    @inline(__always)
    func midiReceiverSlot(_ index: Int) -> Int32 { midiReceivers[index] }

    /// Clears every kernel's DSP state and the delay lines. Thread: audio or control.
    public func reset() {
        for slot in 0..<unitCount { slots[slot].unit.kernel.reset() }
        for line in 0..<delayCount { delayLines[line].clear() }
    }

    @inline(__always)
    private func renderUnit(
        _ index: Int, frameCount: Int, timeStamp: AudioTimeStamp, time: TimeContext,
        events: UnsafeMutablePointer<RenderEvent>?, faults: SPSCRingEnd<EngineNotification>?
    ) {
        let slot = slots[index]
        if slot.faulted {
            for bus in 0..<slot.outputs.count { slot.outputs[bus].clear(frameCount: frameCount) }
            return
        }
        let list = slot.eventCount == 0 || events == nil
            ? RenderEventList(base: nil, count: 0)
            : RenderEventList(base: UnsafePointer(events.unsafelyUnwrapped + Int(slot.eventStart)), count: Int(slot.eventCount))
        for position in 0..<list.count where list[position].kind == .parameter {
            slot.unit.values[Int(list[position].index)] = list[position].value
        }
        if slot.unit.isBypassed {
            for bus in 0..<slot.outputs.count {
                if bus < slot.inputs.count {
                    slot.outputs[bus].copy(from: slot.inputs[bus], frameCount: frameCount)
                } else {
                    slot.outputs[bus].clear(frameCount: frameCount)
                }
            }
            return
        }
        var context = RenderContext(
            frameCount: frameCount, timeStamp: timeStamp, inputs: slot.inputs, outputs: slot.outputs,
            events: list, time: time, segmentInputs: slot.segmentInputs, segmentOutputs: slot.segmentOutputs)
        // The fence: the checker cannot follow a call through a function pointer. Every
        // function that can stand here is a kernel entry that is checked on its own.
        let status = _unsafePerformance { slot.unit.kernel.render(&context) }
        if status != .ok {
            for bus in 0..<slot.outputs.count { slot.outputs[bus].clear(frameCount: frameCount) }
        }
        if slot.checkOutput && !outputsAreFinite(slot.outputs, frameCount: frameCount) {
            for bus in 0..<slot.outputs.count { slot.outputs[bus].clear(frameCount: frameCount) }
            slots[index].faulted = true
            _ = faults?.push(EngineNotification(kind: .nonFiniteOutput, unitID: slot.unit.unitID, sampleTime: timeStamp.sampleTime))
        }
    }
}

/// An event due in the current cycle, resolved to a slot of the program.
public struct DueEvent: BitwiseCopyable {
    public var slot: Int32
    public var event: RenderEvent
}

/// What the audio thread reports to the control side.
public struct EngineNotification: BitwiseCopyable, Sendable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        /// A unit produced NaN or infinity; it was silenced.
        case nonFiniteOutput
        /// The parameter queue was full; values will land when it drains.
        case parameterQueueFull
        /// A new program was adopted.
        case programSwapped
    }
    public var kind: Kind
    public var unitID: UInt64
    public var sampleTime: Int64
}

/// One unit's place in a program: its kernel and buses, as plain memory.
struct UnitSlot {
    let unit: UnitRealtime
    let inputs: BusBuffers
    let outputs: BusBuffers
    let segmentInputs: BusBuffers
    let segmentOutputs: BusBuffers
    let checkOutput: Bool
    var faulted = false
    var eventStart: Int32 = 0
    var eventCount: Int32 = 0

    init(
        unit: UnitRealtime, inputs: BusBuffers, outputs: BusBuffers, segmentInputs: BusBuffers, segmentOutputs: BusBuffers,
        checkOutput: Bool
    ) {
        self.unit = unit
        self.inputs = inputs
        self.outputs = outputs
        self.segmentInputs = segmentInputs
        self.segmentOutputs = segmentOutputs
        self.checkOutput = checkOutput
    }
}

struct UnitLookupEntry {
    var unitID: UInt64
    var slot: Int32
}

@inline(__always)
func outputsAreFinite(_ buses: BusBuffers, frameCount: Int) -> Bool {
    for bus in 0..<buses.count {
        let view = buses[bus]
        for channel in 0..<view.channelCount where !samplesAreFinite(view[channel], count: frameCount) { return false }
    }
    return true
}

/// Whether every sample is finite. x * 0 is NaN exactly when x is NaN or infinite, so
/// running sums catch both without a branch per sample; vector lanes (two registers,
/// to hide the adds' latency) keep it a small fraction of any unit's own work.
@inline(__always)
func samplesAreFinite(_ samples: UnsafeMutablePointer<Float>, count: Int) -> Bool {
    let raw = UnsafeRawPointer(samples)
    var first = SIMD8<Float>(), second = SIMD8<Float>()
    var frame = 0
    while frame &+ 16 <= count {
        first += raw.loadUnaligned(fromByteOffset: frame &* 4, as: SIMD8<Float>.self) * 0
        second += raw.loadUnaligned(fromByteOffset: (frame &+ 8) &* 4, as: SIMD8<Float>.self) * 0
        frame &+= 16
    }
    var probe = (first + second).sum()
    while frame < count {
        probe += samples[frame] * 0
        frame &+= 1
    }
    return !probe.isNaN
}

@inline(__always)
func convertChannels(from source: AudioBuffers, to destination: AudioBuffers, frameCount: Int) {
    if source.channelCount == 1 {
        for channel in 0..<destination.channelCount {
            copySamples(from: source[0], to: destination[channel], count: frameCount)
        }
    } else if destination.channelCount == 1 {
        let out = destination[0]
        let scale = 1 / Float(source.channelCount)
        copySamples(from: source[0], to: out, count: frameCount)
        for channel in 1..<source.channelCount {
            let samples = source[channel]
            for frame in 0..<frameCount { out[frame] += samples[frame] }
        }
        for frame in 0..<frameCount { out[frame] *= scale }
    } else {
        destination.copy(from: source, frameCount: frameCount)
    }
}
