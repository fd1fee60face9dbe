import Synchronization
import TrellisCore

/// Everything the audio thread touches for one engine, in one place named for the
/// thread (jalv's `JalvProcess`): the program it runs, the ends of the rings it shares
/// with the control side, the transport clock, parameter events that wait for a later
/// cycle, and the memory in which each cycle's kernel events are gathered, grouped by
/// slot and put in time order.
///
/// Plain memory, allocated once by `EngineProcessStorage`; no field is a reference, so
/// a cycle touches no reference count. Sorting is a stable merge sort into a scratch
/// buffer, so a cycle with many events costs n log n, never n².
struct EngineProcess {
    static let capacity = RenderProgram.eventCapacity

    /// The program published and not yet adopted.
    let pending: UnsafeMutablePointer<Atomic<UnsafeMutablePointer<ProgramHandoff>?>>
    /// The program the audio thread runs (an `Unmanaged<RenderProgram>`), and its handoff.
    var current: UnsafeMutableRawPointer?
    var currentHandoff: UnsafeMutablePointer<ProgramHandoff>?
    let retired: SPSCRingEnd<UnsafeMutablePointer<ProgramHandoff>>
    /// The generation of the newest program adopted.
    let adopted: UnsafeMutablePointer<Atomic<UInt64>>
    /// Who runs the programs: 0 nobody, 1 the audio thread (in a cycle), 2 a control
    /// thread adopting on its behalf.
    let cycleGate: UnsafeMutablePointer<Atomic<UInt8>>
    /// Cycles started, so a waiter can tell that the backend stopped cycling.
    let cyclesStarted: UnsafeMutablePointer<Atomic<UInt64>>
    let queue: SPSCRingEnd<ParameterEvent>
    let notifications: SPSCRingEnd<EngineNotification>
    var clock: TransportClock
    /// Transport changes from the control side, applied at a cycle's start.
    let transportCommands: SPSCRingEnd<TransportCommand>
    /// MIDI learn's slot (owned by the engine).
    let learn: UnsafeMutablePointer<MIDILearnState>
    /// The clock after each cycle, for the control side.
    let transportMirror: UnsafeMutablePointer<TransportMirror>
    /// Transport changes applied and shown in the mirror, counted.
    let transportApplied: UnsafeMutablePointer<Atomic<UInt64>>
    var transportPopped: UInt64 = 0
    let waiting: UnsafeMutablePointer<ParameterEvent>
    var waitingCount = 0
    let due: UnsafeMutablePointer<DueEvent>
    let scratch: UnsafeMutablePointer<DueEvent>
    let events: UnsafeMutablePointer<RenderEvent>
    /// The render workers, while the engine renders with more than one thread.
    var crew: CrewState?
    /// False beside a live server whose workers would not be real-time: only schedules
    /// asked for always use the crew then.
    var parallelAllowed = true

    /// Its tables and flags in `memory` (the engine's). Thread: control.
    init(
        retired: SPSCRingEnd<UnsafeMutablePointer<ProgramHandoff>>, queue: SPSCRingEnd<ParameterEvent>,
        notifications: SPSCRingEnd<EngineNotification>, transportCommands: SPSCRingEnd<TransportCommand>, in memory: Arena
    ) {
        self.transportCommands = transportCommands
        learn = memory.place(MIDILearnState())
        transportMirror = memory.place(TransportMirror())
        transportApplied = memory.takeAtomics(1, initial: 0)
        pending = memory.takeAtomics(1, initial: nil)
        adopted = memory.takeAtomics(1, initial: 0)
        cycleGate = memory.takeAtomics(1, initial: 0)
        cyclesStarted = memory.takeAtomics(1, initial: 0)
        self.retired = retired
        self.queue = queue
        self.notifications = notifications
        clock = TransportClock()
        transportMirror.pointee.store(clock.time)
        waiting = memory.take(Self.capacity)
        due = memory.take(Self.capacity)
        scratch = memory.take(Self.capacity)
        events = memory.take(Self.capacity)
    }

    /// Adopts a pending program, gathers the cycle's kernel events and runs the current
    /// program with the transport's time; silence when there is no program.
    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    mutating func render(
        frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers,
        midiInput: MIDIInputView? = nil, midiOutput: MIDIBuses = .none, transport: ExternalTransport? = nil,
        clockOut: UnsafeMutablePointer<TimeContext>? = nil
    ) -> RenderStatus {
        // A control thread adopting on this thread's behalf holds the gate: a silent cycle.
        guard cycleGate.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
            output.clear(frameCount: frameCount)
            return .ok
        }
        defer { cycleGate.pointee.store(0, ordering: .releasing) }
        cyclesStarted.pointee.wrappingAdd(1, ordering: .relaxed)
        adoptPendingProgram(at: timeStamp)
        guard let current else {
            output.clear(frameCount: frameCount)
            return .ok
        }
        applyTransportCommands()
        if let transport { clock.follow(transport) }
        let time = clock.cycle(frames: frameCount)
        transportMirror.pointee.store(clock.time)
        clockOut?.pointee = time
        transportApplied.pointee.store(transportPopped, ordering: .releasing)
        return Unmanaged<RenderProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { program in
            if let midiInput { learn.pointee.listen(midiInput) }
            let count = gather(program: program, timeStamp: timeStamp, frameCount: frameCount, time: time, midiInput: midiInput)
            // Not `||`: its right side is a closure, which would retain the program.
            let workers = parallelAllowed ? crew : (program.schedulesAlways ? crew : nil)
            let status = program.run(
                frameCount: frameCount, timeStamp: timeStamp, time: time, input: input, output: output,
                events: count > 0 ? events : nil, faults: notifications, midiInput: midiInput, midiOutput: midiOutput,
                crew: workers)
            if status != .ok { output.clear(frameCount: frameCount) }
            return status
        }
    }

    /// Takes the transport changes the control side queued. Thread: whoever holds the
    /// cycle gate.
    @inline(__always)
    mutating func applyTransportCommands() {
        while let command = transportCommands.pop() {
            clock.apply(command)
            transportPopped &+= 1
        }
    }

    /// The engine's render entry. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ cycle: UnsafeRawPointer) -> UInt8 {
        let call = cycle.assumingMemoryBound(to: BackendCycle.self).pointee
        return state.assumingMemoryBound(to: EngineProcess.self).pointee.render(
            frameCount: call.frameCount, timeStamp: call.timeStamp, input: call.input, output: call.output,
            midiInput: call.midiInput, midiOutput: call.midiOutput, transport: call.transport, clockOut: call.clock).rawValue
    }

    /// Takes a published program, handing the one it replaces back to the control
    /// side; waits a cycle when the retired ring has no room. Thread: audio.
    @inline(__always)
    private mutating func adoptPendingProgram(at timeStamp: AudioTimeStamp) {
        guard pending.pointee.load(ordering: .relaxed) != nil else { return }
        guard currentHandoff == nil || retired.freeCount > 0 else { return }
        guard let next = pending.pointee.exchange(nil, ordering: .acquiringAndReleasing) else { return }
        if let old = install(next) { _ = retired.push(old) }
        _ = notifications.push(EngineNotification(kind: .programSwapped, unitID: 0, sampleTime: timeStamp.sampleTime))
    }

    /// Makes `next` the current program and returns the handoff let go of. Thread:
    /// whoever holds the cycle gate.
    @inline(__always)
    mutating func install(_ next: UnsafeMutablePointer<ProgramHandoff>?) -> UnsafeMutablePointer<ProgramHandoff>? {
        guard let next else { return nil }
        let old = currentHandoff
        currentHandoff = next
        current = next.pointee.program
        adopted.pointee.store(next.pointee.generation, ordering: .releasing)
        return old
    }

    /// Moves queued parameter events into the waiting list, takes those due in this
    /// cycle, and leaves them grouped by slot in time order in `events`, with each
    /// slot's range set in `program`. Returns how many there are. (MIDI joins a unit's
    /// list in the program, from the MIDI buses its inputs are connected to.)
    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    private mutating func gather(program: RenderProgram, timeStamp: AudioTimeStamp, frameCount: Int, time: TimeContext, midiInput: MIDIInputView?) -> Int {
        while waitingCount < Self.capacity, let event = queue.pop() {
            waiting[waitingCount] = event
            waitingCount &+= 1
        }
        var count = 0
        if waitingCount > 0 {
            let end = timeStamp.sampleTime &+ Int64(frameCount)
            var kept = 0
            for index in 0..<waitingCount {
                let event = waiting[index]
                if event.sampleTime >= end {
                    waiting[kept] = event
                    kept &+= 1
                    continue
                }
                let slot = program.slot(of: event.unitID)
                guard slot >= 0 else { continue }  // the unit left the graph
                let offset = event.sampleTime <= timeStamp.sampleTime ? 0 : Int32(event.sampleTime &- timeStamp.sampleTime)
                due[count] = DueEvent(slot: slot, event: .parameter(index: event.index, value: event.value, rampFrames: event.rampFrames, offset: offset))
                count &+= 1
            }
            waitingCount = kept
        }
        program.automation.events(time: time, frameCount: frameCount, into: due, count: &count, capacity: Self.capacity)
        if let midiInput { program.midiMappings.events(midiInput, into: due, count: &count, capacity: Self.capacity) }
        guard count > 0 else { return 0 }
        sort(count)
        for index in 0..<count { events[index] = due[index].event }
        program.assignEvents(due, count: count)
        return count
    }

    /// Orders `due[0..<count]` by slot, then offset, keeping arrival order among equals.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    private func sort(_ count: Int) {
        var source = due, target = scratch
        var width = 1
        while width < count {
            var start = 0
            while start < count {
                let middle = min(start &+ width, count), end = min(start &+ 2 &* width, count)
                var left = start, right = middle, out = start
                while left < middle && right < end {
                    if Self.precedes(source[right], source[left]) {
                        target[out] = source[right]
                        right &+= 1
                    } else {
                        target[out] = source[left]
                        left &+= 1
                    }
                    out &+= 1
                }
                while left < middle { target[out] = source[left]; left &+= 1; out &+= 1 }
                while right < end { target[out] = source[right]; right &+= 1; out &+= 1 }
                start = end
            }
            swap(&source, &target)
            width &*= 2
        }
        if source != due { for index in 0..<count { due[index] = source[index] } }
    }

    @inline(__always)
    private static func precedes(_ a: DueEvent, _ b: DueEvent) -> Bool {
        a.slot < b.slot || (a.slot == b.slot && a.event.offset < b.event.offset)
    }
}

/// Owns an engine's `EngineProcess`. Thread: made and freed on the control side; its
/// state is the audio thread's while a backend renders.
final class EngineProcessStorage: @unchecked Sendable {
    let state: UnsafeMutablePointer<EngineProcess>
    /// The state and everything it points at.
    private let memory = Arena()

    init(_ make: (Arena) -> EngineProcess) {
        state = memory.place(make(memory))
    }
}
