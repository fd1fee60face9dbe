import Glibc
import Synchronization
import TrellisCore
import CTrellisShim

/// Runs the current program for a backend and takes new ones without a glitch.
///
/// Publishing (control): the new program goes into the `pending` slot by an atomic
/// exchange; `publish` returns a ticket to wait on. Adopting (audio): at the start of a
/// cycle the audio thread takes it, runs it from then on and pushes the program it let
/// go of into the `retired` ring. Finishing (control): the engine's finish service
/// frees what the audio thread handed back and delivers its notifications to
/// listeners (see `FinishService`). So nothing is freed, and no reference count
/// reaches zero, on the audio thread.
public final class RenderEngine: RenderSource, ParameterEventSink, @unchecked Sendable {
    /// A `ProgramHandoff` waiting for the audio thread.
    private let pending = Atomic<UnsafeMutablePointer<ProgramHandoff>?>(nil)
    private let events: SPSCRing<ParameterEvent>
    private let eventProducer = Mutex(())
    private let retired: SPSCRing<UnsafeMutablePointer<ProgramHandoff>>
    /// Notifications from the audio thread. The finish service reads them; see
    /// `addNoticeListener`.
    public let notifications: SPSCRing<EngineNotification>
    private let finishing: FinishService

    /// Serializes publishers, so generations reach the pending slot in order.
    private let publisher = Mutex<UInt64>(0)
    /// The generation of the newest program the audio thread has adopted.
    private let adopted = Atomic<UInt64>(0)
    /// Who runs the programs: 0 nobody, 1 the audio thread (in a cycle), 2 a control
    /// thread adopting on its behalf.
    private let cycleGate = Atomic<UInt8>(0)
    /// Cycles started, so a waiter can tell that the backend stopped cycling.
    private let cyclesStarted = Atomic<UInt64>(0)

    /// Where incoming MIDI comes from (the JACK head node's MIDI ports). Set it before
    /// the backend starts. Thread: control, while not rendering.
    public var midiInput: (any MIDIInputSource)?

    // Audio-thread state (a control thread's too while it holds the cycle gate).
    private var current: UnsafeMutableRawPointer?
    private var currentHandoff: UnsafeMutablePointer<ProgramHandoff>?
    private let waiting: UnsafeMutablePointer<ParameterEvent>
    private var waitingCount = 0
    private let due: UnsafeMutablePointer<DueEvent>
    private let eventCapacity: Int

    /// How long no cycle may start, while rendering, before a waiter on a ticket adopts
    /// the pending program itself (see `ProgramTicket.wait`).
    public let quietBeforeAdopting: Duration

    /// `quietBeforeAdopting` should be longer than the backend's longest period.
    /// Thread: control.
    public init(eventCapacity: Int = 4096, quietBeforeAdopting: Duration = .milliseconds(50)) {
        self.eventCapacity = eventCapacity
        self.quietBeforeAdopting = quietBeforeAdopting
        retired = SPSCRing(capacity: 64)
        notifications = SPSCRing(capacity: 1024)
        finishing = FinishService(retired: retired, notifications: notifications)
        events = SPSCRing(capacity: eventCapacity)
        waiting = .allocate(capacity: eventCapacity)
        due = .allocate(capacity: eventCapacity)
    }

    deinit {
        finishing.stop(finalPass: false)
        collectRetired()
        if let handoff = pending.exchange(nil, ordering: .acquiringAndReleasing) { ProgramHandoff.release(handoff) }
        if let currentHandoff { ProgramHandoff.release(currentHandoff) }
        waiting.deallocate()
        due.deallocate()
    }

    // MARK: - Control side

    /// Hands a program to the audio thread; it is adopted at the start of the next
    /// cycle. A program published before and not yet adopted is freed here, since the
    /// audio thread never saw it. Wait on the ticket before freeing or uninitializing
    /// anything only older programs use. Thread: control (publishers are serialized).
    @discardableResult
    public func publish(_ program: RenderProgram) -> ProgramTicket {
        AudioThread.assertNotCurrent("RenderEngine.publish")
        let generation = publisher.withLock { last in
            last += 1
            finishing.labels.withLock { $0.record(program.plan, generation: last) }
            let handoff = ProgramHandoff.make(program, generation: last)
            if let displaced = pending.exchange(handoff, ordering: .acquiringAndReleasing) {
                ProgramHandoff.release(displaced)
            }
            return last
        }
        collectRetired()
        return ProgramTicket(engine: self, generation: generation)
    }

    /// Frees the programs the audio thread has let go of; returns how many. The finish
    /// service does this on its own while rendering. Thread: any but audio.
    @discardableResult
    public func collectRetired() -> Int { finishing.collectRetired() }

    /// True while a published program waits for the audio thread. Thread: any.
    public var hasPendingProgram: Bool { pending.load(ordering: .acquiring) != nil }

    /// The generation of the newest program the audio thread has adopted (0 before
    /// the first). Thread: any.
    public var adoptedGeneration: UInt64 { adopted.load(ordering: .acquiring) }

    /// Waits until a program of `generation` or later is adopted, or `deadline` passes.
    /// When the engine is not rendering, or no cycle started for `quietBeforeAdopting`,
    /// adopts it on the audio thread's behalf between cycles (the cycle gate keeps a
    /// cycle from starting meanwhile; one that tries hears silence). Thread: any but audio.
    func waitUntilAdopted(_ generation: UInt64, deadline: ContinuousClock.Instant?) -> Bool {
        AudioThread.assertNotCurrent("ProgramTicket.wait")
        var seenCycles = cyclesStarted.load(ordering: .relaxed)
        var quietSince = ContinuousClock.now
        while adopted.load(ordering: .acquiring) < generation {
            let now = ContinuousClock.now
            let cycles = cyclesStarted.load(ordering: .relaxed)
            if cycles != seenCycles {
                seenCycles = cycles
                quietSince = now
            }
            if !isRendering, adoptOnBehalf() { continue }
            if let deadline, now >= deadline { return false }
            if now - quietSince >= quietBeforeAdopting, adoptOnBehalf() { continue }
            usleep(100)
        }
        return true
    }

    /// Adopts the pending program between cycles, holding the cycle gate; false when
    /// a cycle runs or nothing is pending. The program let go of is freed here.
    /// Thread: control.
    private func adoptOnBehalf() -> Bool {
        guard cycleGate.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged else { return false }
        let next = pending.exchange(nil, ordering: .acquiringAndReleasing)
        let old = install(next)
        cycleGate.store(0, ordering: .releasing)
        if let old { ProgramHandoff.release(old) }
        return next != nil
    }

    /// Calls `handler` with every notice from the audio thread, named by the program
    /// that raised it, until `removeNoticeListener`. It runs on the finish service's
    /// thread while rendering (within about 5 ms of the cycle that raised it), or on
    /// the thread of a `finish()` call; it must not wait for the thread that calls
    /// `stopRendering`, nor hold the engine strongly. Thread: any.
    @discardableResult
    public func addNoticeListener(_ handler: @escaping @Sendable (EngineNotice) -> Void) -> NoticeListenerToken {
        NoticeListenerToken(rawValue: finishing.addListener(handler))
    }

    /// Thread: any. A pass under way may still call the listener once.
    public func removeNoticeListener(_ token: NoticeListenerToken) {
        finishing.removeListener(token.rawValue)
    }

    /// Makes one finish pass on the calling thread: frees retired programs, delivers
    /// notices to listeners. The finish service makes them on its own while rendering;
    /// call it when driving `render` without `startRendering`. Thread: any but audio.
    @discardableResult
    public func finish() -> FinishReport { finishing.pass() }

    /// Queues a parameter change for the audio thread. Producers are serialized by a
    /// lock that the audio thread never takes. Thread: any but audio.
    public func enqueue(_ event: ParameterEvent) -> ParameterDelivery {
        guard isRendering else { return .notRendering }
        return eventProducer.withLock { _ in events.push(event) } ? .queued : .full
    }

    private let rendering = Atomic<Bool>(false)

    /// True between `startRendering` and `stopRendering`: parameter changes then go
    /// through the queue instead of straight into the units. Thread: any.
    public var isRendering: Bool { rendering.load(ordering: .acquiring) }

    /// A backend calls this before its first cycle; the finish service starts.
    /// Thread: control.
    public func startRendering() {
        rendering.store(true, ordering: .releasing)
        finishing.start()
    }

    /// A backend calls this after its last cycle; the finish service stops after
    /// delivering everything reported until then. Thread: control (not a notice listener).
    public func stopRendering() {
        rendering.store(false, ordering: .releasing)
        finishing.stop()
    }

    /// The next notification from the audio thread, if any, taken before any listener
    /// sees it. Thread: any but audio.
    public func nextNotification() -> EngineNotification? { finishing.nextNotification() }

    // MARK: - Audio side

    /// Adopts a pending program, applies due parameter events and runs the current
    /// program; silence when there is none. Thread: audio.
    public func render(frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers) -> RenderStatus {
        guard beginCycle(at: timeStamp) else {
            output.clear(frameCount: frameCount)
            return .ok
        }
        defer { endCycle() }
        guard let current else {
            output.clear(frameCount: frameCount)
            return .ok
        }
        let program = Unmanaged<RenderProgram>.fromOpaque(current)
        return program._withUnsafeGuaranteedRef { program in
            if let midiInput { program.deliverMIDI(from: midiInput) }
            let dueCount = collectDueEvents(program: program, timeStamp: timeStamp, frameCount: frameCount)
            if dueCount > 0 { program.assignEvents(due, count: dueCount) }
            let status = program.run(
                frameCount: frameCount, timeStamp: timeStamp, input: input, output: output,
                events: dueCount > 0 ? due : nil, faults: notifications)
            if status != .ok { output.clear(frameCount: frameCount) }
            return status
        }
    }

    /// Takes the cycle gate and adopts a pending program; false (a silent cycle) while
    /// a control thread adopts on this one's behalf. Thread: audio.
    @inline(__always)
    private func beginCycle(at timeStamp: AudioTimeStamp) -> Bool {
        guard cycleGate.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else { return false }
        cyclesStarted.wrappingAdd(1, ordering: .relaxed)
        adoptPendingProgram(at: timeStamp)
        return true
    }

    /// Thread: audio.
    @inline(__always)
    private func endCycle() { cycleGate.store(0, ordering: .releasing) }

    @inline(__always)
    private func adoptPendingProgram(at timeStamp: AudioTimeStamp) {
        guard pending.load(ordering: .relaxed) != nil else { return }
        // Only adopt when the old program can be handed back.
        guard currentHandoff == nil || retired.freeCount > 0 else { return }
        guard let next = pending.exchange(nil, ordering: .acquiringAndReleasing) else { return }
        if let old = install(next) { _ = retired.push(old) }
        _ = notifications.push(EngineNotification(kind: .programSwapped, unitID: 0, sampleTime: timeStamp.sampleTime))
    }

    /// Makes `next` the current program and returns the handoff let go of. Thread:
    /// whoever holds the cycle gate.
    @inline(__always)
    private func install(_ next: UnsafeMutablePointer<ProgramHandoff>?) -> UnsafeMutablePointer<ProgramHandoff>? {
        guard let next else { return nil }
        let old = currentHandoff
        currentHandoff = next
        current = next.pointee.program
        adopted.store(next.pointee.generation, ordering: .releasing)
        return old
    }

    /// Moves queued events into the waiting list, then takes those due this cycle,
    /// resolved to slots and sorted by slot and offset.
    @inline(__always)
    private func collectDueEvents(program: RenderProgram, timeStamp: AudioTimeStamp, frameCount: Int) -> Int {
        while waitingCount < eventCapacity, let event = events.pop() {
            waiting[waitingCount] = event
            waitingCount += 1
        }
        guard waitingCount > 0 else { return 0 }
        let end = timeStamp.sampleTime + Int64(frameCount)
        var dueCount = 0
        var kept = 0
        for index in 0..<waitingCount {
            let event = waiting[index]
            if event.sampleTime >= end {
                waiting[kept] = event
                kept += 1
                continue
            }
            let slot = program.slot(of: event.unitID)
            guard slot >= 0 else { continue }  // the unit left the graph
            let offset = event.sampleTime <= timeStamp.sampleTime ? 0 : Int32(event.sampleTime - timeStamp.sampleTime)
            let item = DueEvent(slot: slot, offset: offset, index: event.index, value: event.value, rampFrames: event.rampFrames)
            // Insertion keeps (slot, offset) order and arrival order among equals.
            var position = dueCount
            while position > 0 && (due[position - 1].slot > item.slot
                || (due[position - 1].slot == item.slot && due[position - 1].offset > item.offset)) {
                due[position] = due[position - 1]
                position -= 1
            }
            due[position] = item
            dueCount += 1
        }
        waitingCount = kept
        return dueCount
    }
}
