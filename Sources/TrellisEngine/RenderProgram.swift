import TrellisCore

/// A plan turned into memory: every buffer, view and delay line allocated once, so
/// running it touches no allocator. Made and freed on the control side; run on the
/// audio thread, or on any single thread for an offline render.
public final class RenderProgram: @unchecked Sendable {
    public let plan: ProgramPlan
    /// Every table and buffer below, freed together when the program goes.
    private let memory: Arena
    public let maximumFrames: Int

    private let pool: UnsafeMutablePointer<Float>
    private let silence: UnsafeMutablePointer<Float>
    /// Each bus's channel pointers, then (at `totalChannels` further on) the pool
    /// buffers they start at. The input buses and the bus the output takes point at the
    /// backend's buffers during a cycle (see `fillInput` and `pointOutputBus`).
    private let channelTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let busViews: UnsafeMutablePointer<AudioBuffers>
    /// Per bus: whether its channels may point outside the pool (no other bus views it).
    private let repointable: UnsafeMutablePointer<Bool>
    private let slots: UnsafeMutablePointer<UnitSlot>
    private let unitViews: UnsafeMutablePointer<AudioBuffers>
    private let segmentViews: UnsafeMutablePointer<AudioBuffers>
    private let segmentChannels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let operations: UnsafeMutablePointer<ProgramPlan.Operation>
    private let delayLines: UnsafeMutablePointer<DelayLineState>
    /// Owns the delay lines' memory (shared with the programs before and after this one).
    private let delayStorage: [DelayLineStorage]
    private let lookup: UnsafeMutablePointer<UnitLookupEntry>
    /// The parameter lanes, which `automationEvents` plays.
    let automation: AutomationTable
    /// Controllers mapped to parameters and bypasses.
    let midiMappings: MIDIMappingTable
    private let observers: UnsafeMutablePointer<ObserverKernel>
    /// The MIDI buffers (owned by `midiStorage`, which the audio thread never touches),
    /// what feeds each unit's MIDI inputs and each MIDI sink, and the memory in which a
    /// unit's parameter events and MIDI are merged into one list.
    private let midiStorage: MIDIBufferStorage
    private let midiBuffers: MIDIBuses
    private let midiSourceTable: UnsafeMutablePointer<MIDISourceEntry>
    private let midiSinkTable: UnsafeMutablePointer<MIDISinkEntry>
    /// Each thread's scratch for merging MIDI and its notification ring (see `RenderLane`).
    let lanes: UnsafeMutablePointer<RenderLane>
    let laneCount: Int
    /// The rings of lanes 1 and up; the audio thread moves what they hold to the engine's.
    private let laneRings: [SPSCRing<EngineNotification>]
    private let mergeCapacity: Int
    /// The tasks and their counters, when more than one thread may run this program.
    let schedule: ParallelSchedule?
    /// The schedule's plain memory, which the audio thread and the workers reach.
    let scheduleState: UnsafeMutablePointer<ScheduleState>?
    /// The schedule runs on every cycle, measured or not (`Parallelism.Choice.always`).
    let schedulesAlways: Bool
    /// The cycle being run in parallel, for the workers.
    let cycleSlot: UnsafeMutablePointer<CycleArguments>
    let unitCount: Int
    /// Entries in `lookup`: one per unit, not per instance.
    private let lookupCount: Int
    let operationCount: Int
    private let delayCount: Int
    private let outputChannelCount: Int
    /// The bus `emitOutput` takes when a unit writes it, so that unit can write the
    /// backend's output buffers itself; -1 when another step writes it (the input, a
    /// silent bus, a conversion), which is then copied.
    private let outputBus: Int
    private let totalChannels: Int
    private let totalUnitBuses: Int
    private let totalUnitChannels: Int

    /// Events one MIDI buffer holds per cycle; more are dropped.
    public static let midiCapacity = 1024
    /// Parameter events one unit takes per cycle (the engine's gathering capacity).
    public static let eventCapacity = 8192

    /// Allocates everything `plan` needs for slices of up to `maximumFrames`. The
    /// plan's units must be initialized. Delay lines that `previous` runs with the same
    /// key and size are shared, not made anew, so the audio in them carries over the swap.
    /// With `parallelism` above one thread, the program carries a task schedule and
    /// scratch for each thread. Thread: control.
    public init(plan: ProgramPlan, maximumFrames: Int, continuing previous: RenderProgram? = nil, parallelism: Parallelism = .off) {
        self.plan = plan
        self.maximumFrames = maximumFrames
        let memory = Arena()
        self.memory = memory
        let stride = (maximumFrames + 15) & ~15
        pool = memory.take((plan.bufferCount + 1) * stride, repeating: 0)
        let pool = self.pool, silence = pool + plan.bufferCount * stride
        self.silence = silence

        func pointer(_ buffer: Int) -> UnsafeMutablePointer<Float> {
            buffer == ProgramPlan.silence ? silence : pool + buffer * stride
        }

        totalChannels = plan.buses.reduce(0) { $0 + $1.channelCount }
        channelTable = memory.take(2 * totalChannels)
        busViews = memory.take(plan.buses.count)
        let viewed = Set(plan.buses.compactMap(\.viewOf))
        repointable = memory.take(plan.buses.count)
        for bus in plan.buses.indices { (repointable + bus).initialize(to: !viewed.contains(bus)) }
        var next = 0
        for (index, bus) in plan.buses.enumerated() {
            let first = channelTable + next
            for (channel, buffer) in bus.buffers.enumerated() {
                (first + channel).initialize(to: pointer(buffer))
                (first + totalChannels + channel).initialize(to: pointer(buffer))
            }
            (busViews + index).initialize(to: AudioBuffers(channelPointers: UnsafePointer(first), channelCount: bus.channelCount))
            next += bus.channelCount
        }

        totalUnitBuses = plan.units.reduce(0) { $0 + $1.inputs.count + $1.outputs.count }
        totalUnitChannels = plan.units.reduce(0) { total, unit in
            total + (unit.inputs + unit.outputs).reduce(0) { $0 + plan.buses[$1].channelCount }
        }
        unitViews = memory.take(totalUnitBuses)
        segmentViews = memory.take(totalUnitBuses)
        segmentChannels = memory.take(max(1, totalUnitChannels), repeating: silence)
        slots = memory.take(plan.units.count)
        let midiStorage = MIDIBufferStorage(count: plan.midiBufferCount, capacity: Self.midiCapacity)
        self.midiStorage = midiStorage
        midiBuffers = midiStorage.buses
        let sourceEntries = plan.units.flatMap { $0.midiInputs } .map { MIDISourceEntry(buffer: Int32($0.buffer), bus: Int32($0.bus)) }
            + plan.midiSinks.flatMap { $0.sources }.map { MIDISourceEntry(buffer: Int32($0), bus: 0) }
        midiSourceTable = memory.copy(sourceEntries)
        let widestMerge = (plan.units.map { $0.midiInputs.count } + plan.midiSinks.map { $0.sources.count }).max() ?? 0
        mergeCapacity = plan.units.contains { !$0.midiInputs.isEmpty }
            ? Self.eventCapacity + widestMerge * Self.midiCapacity : 1
        laneCount = parallelism.threads
        laneRings = (1..<max(1, laneCount)).map { _ in SPSCRing(capacity: 256) }
        lanes = memory.take(laneCount)
        for lane in 0..<laneCount {
            (lanes + lane).initialize(to: RenderLane(
                mergeRuns: memory.take(widestMerge + 1), merged: memory.take(mergeCapacity),
                faults: lane == 0 ? nil : laneRings[lane - 1].end))
        }
        // A graph whose steps form one chain has nothing to share out.
        let tasks = parallelism.threads > 1 ? TaskGraph(plan: plan) : nil
        schedule = tasks.flatMap { tasks in
            tasks.canSpread || parallelism.choice == .always ? ParallelSchedule(tasks, choice: parallelism.choice, lanes: parallelism.threads) : nil
        }
        scheduleState = schedule?.state
        schedulesAlways = schedule != nil && parallelism.choice == .always
        cycleSlot = memory.take(1)
        var nextSource = 0
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
            let midiOutputs = planned.midiOutputs.first.map { midiStorage.buses($0..<($0 + planned.midiOutputs.count)) } ?? .none
            (slots + index).initialize(to: UnitSlot(
                unit: planned.realtime ?? planned.unit.realtime,
                inputs: BusBuffers(buses: UnsafePointer(unitViews + first), count: inputCount),
                outputs: BusBuffers(buses: UnsafePointer(unitViews + first + inputCount), count: outputCount),
                segmentInputs: BusBuffers(buses: UnsafePointer(segmentViews + first), count: inputCount),
                segmentOutputs: BusBuffers(buses: UnsafePointer(segmentViews + first + inputCount), count: outputCount),
                outputCheck: planned.outputCheck, resetsOnFault: planned.resetsOnFault, midiOutputs: midiOutputs,
                midiSourceStart: Int32(nextSource), midiSourceCount: Int32(planned.midiInputs.count),
                eventSlot: Int32(planned.eventsOf ?? index)))
            nextSource += planned.midiInputs.count
        }
        midiSinkTable = memory.take(plan.midiSinks.count)
        for (index, sink) in plan.midiSinks.enumerated() {
            (midiSinkTable + index).initialize(to: MIDISinkEntry(
                port: Int32(sink.port), sourceStart: Int32(nextSource), sourceCount: Int32(sink.sources.count)))
            nextSource += sink.sources.count
        }

        operations = memory.copy(plan.operations)

        var available = previous?.delayStorage ?? []
        delayStorage = plan.delays.map { delay in
            if !delay.key.isEmpty, let index = available.firstIndex(where: { $0.fits(delay) }) {
                return available.remove(at: index)
            }
            return DelayLineStorage(key: delay.key, frames: delay.frames, channelCount: delay.channelCount)
        }
        delayLines = memory.take(plan.delays.count)
        for (index, storage) in delayStorage.enumerated() {
            (delayLines + index).initialize(to: DelayLineState(storage))
        }

        // Instances take their unit's events: only the unit's own slot is looked up.
        let entries = plan.units.enumerated().filter { $1.eventsOf == nil }
            .map { UnitLookupEntry(unitID: $1.unit.unitID, slot: Int32($0)) }
            .sorted { $0.unitID < $1.unitID }
        lookup = memory.copy(entries)
        lookupCount = entries.count
        let table = Dictionary(entries.map { ($0.unitID, $0.slot) }, uniquingKeysWith: { first, _ in first })
        automation = AutomationTable(plan.automation, in: memory) { table[$0] ?? -1 }
        let flags = Dictionary(plan.units.map { ($0.unit.unitID, $0.unit) }, uniquingKeysWith: { first, _ in first })
        midiMappings = MIDIMappingTable(plan.midiMappings, in: memory, slot: { table[$0] ?? -1 }, bypass: { flags[$0].map { $0.isInitialized ? $0.realtime.bypass : nil } ?? nil })

        unitCount = plan.units.count
        operationCount = plan.operations.count
        delayCount = plan.delays.count
        outputChannelCount = plan.outputChannelCount
        let written = Set(plan.units.flatMap(\.outputs))
        outputBus = plan.operations.lazy.compactMap { operation -> Int? in
            if case .emitOutput(let bus) = operation, written.contains(Int(bus)), !viewed.contains(Int(bus)) { return Int(bus) }
            return nil
        }.first ?? -1

        observers = memory.take(plan.observers.count)
        for (index, entry) in plan.observers.enumerated() {
            (observers + index).initialize(to: entry.observer.observerKernel)
        }
    }

    /// How the program's schedule runs now and what measuring found; nil without one
    /// (a single thread). Thread: any.
    public var scheduleReport: ScheduleReport? { schedule?.report }

    /// The listing of the plan, then its schedule when it has one.
    public var listing: String {
        guard let schedule else { return plan.listing }
        return plan.listing + "\n" + schedule.listing(threads: laneCount)
    }

    /// The slot of a unit in this program, or -1. Thread: any.
    @inline(__always)
    func slot(of unitID: UInt64) -> Int32 {
        var low = 0, high = lookupCount - 1
        while low <= high {
            let middle = (low + high) >> 1
            let entry = lookup[middle]
            if entry.unitID == unitID { return entry.slot }
            if entry.unitID < unitID { low = middle + 1 } else { high = middle - 1 }
        }
        return -1
    }

    /// Runs the program once. `events` holds the cycle's parameter events grouped by slot
    /// in time order, each slot's range set by `assignEvents`; `midiInput` the
    /// backend's MIDI input ports, `midiOutput` its MIDI output ports (emptied by the
    /// backend). Thread: audio (or one offline thread).
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
        faults: SPSCRingEnd<EngineNotification>? = nil,
        midiInput: MIDIInputView? = nil,
        midiOutput: MIDIBuses = .none
    ) -> RenderStatus {
        run(frameCount: frameCount, timeStamp: timeStamp, time: time, input: input, output: output, events: events,
            faults: faults, midiInput: midiInput, midiOutput: midiOutput, crew: nil)
    }

    /// `run`, with the render workers of `crew` when the program has a schedule.
    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func run(
        frameCount: Int, timeStamp: AudioTimeStamp, time: TimeContext, input: AudioBuffers, output: AudioBuffers,
        events: UnsafeMutablePointer<RenderEvent>?, faults: SPSCRingEnd<EngineNotification>?, midiInput: MIDIInputView?,
        midiOutput: MIDIBuses, crew: CrewState?
    ) -> RenderStatus {
        guard frameCount <= maximumFrames else { return .tooManyFrames }
        let cycle = CycleArguments(
            frameCount: frameCount, timeStamp: timeStamp, time: time, input: input, output: output, events: events,
            midiInput: midiInput, midiOutput: midiOutput)
        lanes[0].faults = faults
        if outputBus >= 0 { pointOutputBus(at: output, input: input, frameCount: frameCount) }
        if let scheduleState, let crew {
            runScheduled(scheduleState, cycle, crew: crew)
        } else {
            // No workers to share with: the schedule's measuring would decide nothing.
            if let scheduleState { scheduleState.pointee.settleOnOneThread() }
            for step in 0..<operationCount { perform(step, cycle, lanes[0]) }
        }
        for slot in 0..<unitCount { slots[slot].eventCount = 0 }
        if outputChannelCount == 0 { output.clear(frameCount: frameCount) }
        return .ok
    }

    /// Runs step `step` of the program. Thread: audio, or a render worker holding the
    /// step's task.
    @inline(__always)
    func perform(_ step: Int, _ cycle: CycleArguments, _ lane: RenderLane) {
        switch operations[step] {
        case .fillInput(let bus, let firstChannel):
            // The bus reads the backend's buffers where they are; readers never write it.
            let view = busViews[Int(bus)], repoint = repointable[Int(bus)]
            let table = UnsafeMutablePointer(mutating: view.channelPointers.unsafelyUnwrapped), pool = table + totalChannels
            for channel in 0..<view.channelCount {
                let source = Int(firstChannel) + channel
                if source < cycle.input.channelCount && repoint {
                    table[channel] = cycle.input[source]
                } else if source < cycle.input.channelCount {
                    copySamples(from: cycle.input[source], to: table[channel], count: cycle.frameCount)
                } else {
                    table[channel] = pool[channel]
                    pool[channel].update(repeating: 0, count: cycle.frameCount)
                }
            }
        case .render(let unit):
            renderUnit(Int(unit), cycle, lane)
        case .copy(let from, let to):
            busViews[Int(to)].copy(from: busViews[Int(from)], frameCount: cycle.frameCount)
        case .convertChannels(let from, let to):
            convertChannels(from: busViews[Int(from)], to: busViews[Int(to)], frameCount: cycle.frameCount)
        case .delay(let line, let from, let to):
            delayLines[Int(line)].process(from: busViews[Int(from)], to: busViews[Int(to)], frameCount: cycle.frameCount)
        case .emitOutput(let bus):
            if !copyFinite(from: busViews[Int(bus)], to: cycle.output, frameCount: cycle.frameCount) {
                // A unit probed only at its last frame let a non-finite sample pass.
                cycle.output.clear(frameCount: cycle.frameCount)
                _ = lane.faults?.push(EngineNotification(kind: .nonFiniteOutput, unitID: 0, sampleTime: cycle.timeStamp.sampleTime))
            }
        case .observe(let observer, let bus):
            var slice = ObservedSlice(bus: busViews[Int(bus)], frameCount: cycle.frameCount, timeStamp: cycle.timeStamp)
            observers[Int(observer)].observe(&slice)
        case .fillMIDI(let port, let buffer):
            fillMIDI(midiBuffers[Int(buffer)], port: Int(port), from: cycle.midiInput, frameCount: cycle.frameCount)
            reportDroppedMIDI(midiBuffers[Int(buffer)].takeDropped(), unitID: 0, timeStamp: cycle.timeStamp, faults: lane.faults)
        case .emitMIDI(let sink):
            emitMIDI(midiSinkTable[Int(sink)], to: cycle.midiOutput, lane: lane)
        }

    }

    /// Points the output bus at the backend's output buffers, so the unit writing it
    /// writes them and `emitOutput` only checks; at its pool buffers for channels the
    /// output lacks, and for every channel when an output buffer overlaps an input one
    /// (the unit would then read what it writes). Thread: audio.
    @inline(__always)
    private func pointOutputBus(at output: AudioBuffers, input: AudioBuffers, frameCount: Int) {
        let view = busViews[outputBus]
        let table = UnsafeMutablePointer(mutating: view.channelPointers.unsafelyUnwrapped), pool = table + totalChannels
        let direct = !buffersOverlap(output, input, frameCount: frameCount)
        for channel in 0..<view.channelCount {
            table[channel] = direct && channel < output.channelCount ? output[channel] : pool[channel]
        }
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

    /// Clears every kernel's DSP state and the delay lines. Thread: audio or control.
    public func reset() {
        for slot in 0..<unitCount { slots[slot].unit.kernel.reset() }
        for line in 0..<delayCount { delayLines[line].clear() }
    }

    @inline(__always)
    private func renderUnit(_ index: Int, _ cycle: CycleArguments, _ lane: RenderLane) {
        let frameCount = cycle.frameCount, timeStamp = cycle.timeStamp, events = cycle.events
        let slot = slots[index]
        for bus in 0..<slot.midiOutputs.count { slot.midiOutputs[bus].clear() }
        if slot.faulted {
            for bus in 0..<slot.outputs.count { slot.outputs[bus].clear(frameCount: frameCount) }
            return
        }
        let owner = slots[Int(slot.eventSlot)]
        var list = owner.eventCount == 0 || events == nil
            ? RenderEventList(base: nil, count: 0)
            : RenderEventList(base: UnsafePointer(events.unsafelyUnwrapped + Int(owner.eventStart)), count: Int(owner.eventCount))
        for position in 0..<list.count where list[position].kind == .parameter {
            slot.unit.values[Int(list[position].index)] = list[position].value
        }
        if slot.midiSourceCount > 0 { list = mergeMIDI(into: list, slot: slot, lane: lane) }
        if slot.unit.isBypassed {
            for bus in 0..<slot.outputs.count {
                if bus < slot.inputs.count {
                    slot.outputs[bus].copy(from: slot.inputs[bus], frameCount: frameCount)
                } else {
                    slot.outputs[bus].clear(frameCount: frameCount)
                }
            }
            // MIDI passes through too: input bus b to output bus b.
            for position in 0..<list.count where list[position].kind == .midi {
                let event = list[position]
                guard Int(event.index) < slot.midiOutputs.count else { continue }
                slot.midiOutputs[Int(event.index)].append(
                    status: event.status, data1: event.data1, data2: event.data2, length: event.length, offset: event.offset)
            }
            return
        }
        var context = RenderContext(
            frameCount: frameCount, timeStamp: timeStamp, inputs: slot.inputs, outputs: slot.outputs,
            events: list, time: cycle.time, segmentInputs: slot.segmentInputs, segmentOutputs: slot.segmentOutputs,
            midiOutputs: slot.midiOutputs)
        // The fence: the checker cannot follow a call through a function pointer. Every
        // function that can stand here is a kernel entry that is checked on its own.
        let status = _unsafePerformance { slot.unit.kernel.render(&context) }
        if status != .ok {
            for bus in 0..<slot.outputs.count { slot.outputs[bus].clear(frameCount: frameCount) }
            for bus in 0..<slot.midiOutputs.count { slot.midiOutputs[bus].clear() }
        }
        if slot.midiOutputs.count > 0 {
            var dropped = 0
            for bus in 0..<slot.midiOutputs.count { dropped &+= slot.midiOutputs[bus].takeDropped() }
            reportDroppedMIDI(dropped, unitID: slot.unit.unitID, timeStamp: timeStamp, faults: lane.faults)
        }
        let finite: Bool
        switch slot.outputCheck {
        case .none: return
        case .lastFrames: finite = lastFramesAreFinite(slot.outputs, frameCount: frameCount)
        case .everySample: finite = outputsAreFinite(slot.outputs, frameCount: frameCount)
        }
        if finite {
            slots[index].recovering = false
            return
        }
        for bus in 0..<slot.outputs.count { slot.outputs[bus].clear(frameCount: frameCount) }
        for bus in 0..<slot.midiOutputs.count { slot.midiOutputs[bus].clear() }
        if slot.resetsOnFault {
            // Poisoned filter state would keep it silent after the input is finite again:
            // cleared, it comes back on the first finite cycle.
            _unsafePerformance { slot.unit.kernel.reset() }
            if slot.recovering { return }
            slots[index].recovering = true
        } else {
            slots[index].faulted = true
        }
        _ = lane.faults?.push(EngineNotification(
            kind: .nonFiniteOutput, unitID: slot.unit.unitID, sampleTime: timeStamp.sampleTime, count: slot.resetsOnFault ? 1 : 0))
    }
}

extension RenderProgram {
    /// Reports MIDI dropped this cycle, by a unit or (id 0) the backend's ports, as one
    /// notification. Thread: audio.
    @inline(__always)
    private func reportDroppedMIDI(
        _ dropped: Int, unitID: UInt64, timeStamp: AudioTimeStamp, faults: SPSCRingEnd<EngineNotification>?
    ) {
        guard dropped > 0 else { return }
        _ = faults?.push(EngineNotification(
            kind: .midiDropped, unitID: unitID, sampleTime: timeStamp.sampleTime, count: Int32(truncatingIfNeeded: dropped)))
    }

    /// The slot's parameter events and the MIDI its inputs hear, in one time-ordered
    /// list (a parameter change lands before a note at the same frame); each MIDI event
    /// tagged with the input bus it arrived on. `params` itself when no MIDI came.
    /// Thread: audio.
    @inline(__always)
    private func mergeMIDI(into params: RenderEventList, slot: UnitSlot, lane: RenderLane) -> RenderEventList {
        let mergeRuns = lane.mergeRuns, merged = lane.merged
        var runCount = 0
        if params.count > 0 {
            mergeRuns[0] = MergeRun(base: params.base, count: params.count, bus: -1)
            runCount = 1
        }
        for position in 0..<Int(slot.midiSourceCount) {
            let source = midiSourceTable[Int(slot.midiSourceStart) &+ position]
            let buffer = midiBuffers[Int(source.buffer)]
            guard buffer.count > 0 else { continue }
            mergeRuns[runCount] = MergeRun(base: UnsafePointer(buffer.events), count: buffer.count, bus: source.bus)
            runCount &+= 1
        }
        guard runCount > (params.count > 0 ? 1 : 0) else { return params }
        let count = mergeEventRuns(mergeRuns, runCount, into: merged, capacity: mergeCapacity)
        return RenderEventList(base: UnsafePointer(merged), count: count)
    }

    /// Copies port `port`'s messages of the backend's MIDI input into `buffer`.
    /// Thread: audio.
    @inline(__always)
    private func fillMIDI(_ buffer: MIDIBuffer, port: Int, from input: MIDIInputView?, frameCount: Int) {
        buffer.clear()
        guard let input else { return }
        for index in 0..<input.count {
            let message = input[index]
            guard message.port == port, message.length > 0 else { continue }
            let offset = Int32(min(max(0, message.frame), frameCount &- 1))
            buffer.append(status: message.status, data1: message.data1, data2: message.data2, length: message.length, offset: offset)
        }
    }

    /// Merges what feeds a MIDI sink into the backend's output port, counting on the
    /// port's buffer (`dropped`) what it had no room for. Thread: audio.
    @inline(__always)
    private func emitMIDI(_ sink: MIDISinkEntry, to output: MIDIBuses, lane: RenderLane) {
        let mergeRuns = lane.mergeRuns
        guard Int(sink.port) < output.count else { return }
        var runCount = 0, total = 0
        for position in 0..<Int(sink.sourceCount) {
            let buffer = midiBuffers[Int(midiSourceTable[Int(sink.sourceStart) &+ position].buffer)]
            guard buffer.count > 0 else { continue }
            mergeRuns[runCount] = MergeRun(base: UnsafePointer(buffer.events), count: buffer.count, bus: -1)
            runCount &+= 1
            total &+= buffer.count
        }
        guard runCount > 0 else { return }
        let target = output[Int(sink.port)]
        let used = target.count
        let added = mergeEventRuns(mergeRuns, runCount, into: target.events + used, capacity: target.capacity &- used)
        target.counter.pointee = used &+ added
        // The backend names its port when it reports what its buffer had no room for.
        target.dropped.pointee &+= total &- added
    }
}
