import Synchronization
import TrellisCore
import CTrellisShim

/// Runs the current program for a backend and takes new ones without a glitch.
///
/// Publishing (control): the new program goes into the `pending` slot by an atomic
/// exchange. Adopting (audio): at the start of a cycle the audio thread takes it,
/// runs it from then on and pushes the program it let go of into the `retired` ring.
/// Reclaiming (control): `collectRetired` frees what the audio thread handed back. So
/// nothing is freed, and no reference count reaches zero, on the audio thread.
public final class RenderEngine: RenderSource, ParameterEventSink, @unchecked Sendable {
    private let pending = Atomic<UnsafeMutableRawPointer?>(nil)
    private let retired: SPSCRing<UnsafeMutableRawPointer>
    private let events: SPSCRing<ParameterEvent>
    private let eventProducer = Mutex(())
    /// Notifications from the audio thread; drain with `nextNotification`.
    public let notifications: SPSCRing<EngineNotification>

    /// Where incoming MIDI comes from (the JACK head node's MIDI ports). Set it before
    /// the backend starts. Thread: control, while not rendering.
    public var midiInput: (any MIDIInputSource)?

    // Audio-thread state.
    private var current: UnsafeMutableRawPointer?
    private let waiting: UnsafeMutablePointer<ParameterEvent>
    private var waitingCount = 0
    private let due: UnsafeMutablePointer<DueEvent>
    private let eventCapacity: Int

    /// Thread: control.
    public init(eventCapacity: Int = 4096) {
        self.eventCapacity = eventCapacity
        retired = SPSCRing(capacity: 64)
        events = SPSCRing(capacity: eventCapacity)
        notifications = SPSCRing(capacity: 1024)
        waiting = .allocate(capacity: eventCapacity)
        due = .allocate(capacity: eventCapacity)
    }

    deinit {
        collectRetired()
        if let program = pending.exchange(nil, ordering: .acquiringAndReleasing) {
            Unmanaged<RenderProgram>.fromOpaque(program).release()
        }
        if let current { Unmanaged<RenderProgram>.fromOpaque(current).release() }
        waiting.deallocate()
        due.deallocate()
    }

    // MARK: - Control side

    /// Hands a program to the audio thread; it is adopted at the start of the next
    /// cycle. A program published before and not yet adopted is freed here, since the
    /// audio thread never saw it. Thread: control.
    public func publish(_ program: RenderProgram) {
        let opaque = Unmanaged.passRetained(program).toOpaque()
        if let displaced = pending.exchange(opaque, ordering: .acquiringAndReleasing) {
            Unmanaged<RenderProgram>.fromOpaque(displaced).release()
        }
        collectRetired()
    }

    /// Frees the programs the audio thread has let go of; returns how many. Thread: control.
    @discardableResult
    public func collectRetired() -> Int {
        var count = 0
        while let program = retired.pop() {
            Unmanaged<RenderProgram>.fromOpaque(program).release()
            count += 1
        }
        return count
    }

    /// True while a published program waits for the audio thread. Thread: any.
    public var hasPendingProgram: Bool { pending.load(ordering: .acquiring) != nil }

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

    /// A backend calls this before its first cycle. Thread: control.
    public func startRendering() { rendering.store(true, ordering: .releasing) }

    /// A backend calls this after its last cycle. Thread: control.
    public func stopRendering() { rendering.store(false, ordering: .releasing) }

    /// The next notification from the audio thread, if any. Thread: one control thread.
    public func nextNotification() -> EngineNotification? { notifications.pop() }

    // MARK: - Audio side

    /// Adopts a pending program, applies due parameter events and runs the current
    /// program; silence when there is none. Thread: audio.
    public func render(frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers) -> RenderStatus {
        adoptPendingProgram(at: timeStamp)
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

    @inline(__always)
    private func adoptPendingProgram(at timeStamp: AudioTimeStamp) {
        guard pending.load(ordering: .relaxed) != nil else { return }
        // Only adopt when the old program can be handed back.
        guard current == nil || retired.freeCount > 0 else { return }
        guard let next = pending.exchange(nil, ordering: .acquiringAndReleasing) else { return }
        if let old = current { _ = retired.push(old) }
        current = next
        _ = notifications.push(EngineNotification(kind: .programSwapped, unitID: 0, sampleTime: timeStamp.sampleTime))
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
