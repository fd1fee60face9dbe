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
    private let events: SPSCRing<ParameterEvent>
    private let eventProducer = Mutex(())
    private let transportCommands = SPSCRing<TransportCommand>(capacity: 64)
    /// Transport changes pushed, counted (under the lock).
    private let transportProducer = Mutex<UInt64>(0)
    private let retired: SPSCRing<UnsafeMutablePointer<ProgramHandoff>>
    /// Notifications from the audio thread. The finish service reads them; see
    /// `addNoticeListener`.
    public let notifications: SPSCRing<EngineNotification>
    private let finishing: FinishService

    /// Serializes publishers, so generations reach the pending slot in order.
    private let publisher = Mutex<UInt64>(0)
    private let publishedLatency = Atomic<Int>(0)

    /// The audio thread's state (a control thread's too while it holds the cycle gate),
    /// reached through `process`: plain memory, no reference.
    private let processStorage: EngineProcessStorage
    private let process: UnsafeMutablePointer<EngineProcess>
    private var pending: UnsafeMutablePointer<Atomic<UnsafeMutablePointer<ProgramHandoff>?>> { process.pointee.pending }

    /// How long no cycle may start, while rendering, before a waiter on a ticket adopts
    /// the pending program itself (see `ProgramTicket.wait`).
    public let quietBeforeAdopting: Duration

    /// `quietBeforeAdopting` should be longer than the backend's longest period.
    /// Thread: control.
    public init(eventCapacity: Int = 4096, quietBeforeAdopting: Duration = .milliseconds(50)) {
        self.quietBeforeAdopting = quietBeforeAdopting
        retired = SPSCRing(capacity: 64)
        notifications = SPSCRing(capacity: 1024)
        finishing = FinishService(retired: retired, notifications: notifications)
        events = SPSCRing(capacity: eventCapacity)
        let (retiredEnd, eventsEnd, notificationsEnd, commandsEnd) = (retired.end, events.end, notifications.end, transportCommands.end)
        processStorage = EngineProcessStorage { memory in
            EngineProcess(retired: retiredEnd, queue: eventsEnd, notifications: notificationsEnd, transportCommands: commandsEnd, in: memory)
        }
        process = processStorage.state
    }

    deinit {
        finishing.stop(finalPass: false)
        collectRetired()
        if let handoff = pending.pointee.exchange(nil, ordering: .acquiringAndReleasing) { ProgramHandoff.release(handoff) }
        if let currentHandoff = process.pointee.currentHandoff { ProgramHandoff.release(currentHandoff) }
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
            publishedLatency.store(program.plan.latency, ordering: .relaxed)
            let handoff = ProgramHandoff.make(program, generation: last)
            if let displaced = pending.pointee.exchange(handoff, ordering: .acquiringAndReleasing) {
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

    /// The latency of the program last published. Thread: any.
    public var latencyFrames: Int { publishedLatency.load(ordering: .relaxed) }

    /// True while a published program waits for the audio thread. Thread: any.
    public var hasPendingProgram: Bool { pending.pointee.load(ordering: .acquiring) != nil }

    /// The generation of the newest program the audio thread has adopted (0 before
    /// the first). Thread: any.
    public var adoptedGeneration: UInt64 { process.pointee.adopted.pointee.load(ordering: .acquiring) }

    /// Waits until a program of `generation` or later is adopted, or `deadline` passes.
    /// When the engine is not rendering, or no cycle started for `quietBeforeAdopting`,
    /// adopts it on the audio thread's behalf between cycles (the cycle gate keeps a
    /// cycle from starting meanwhile; one that tries hears silence). Thread: any but audio.
    func waitUntilAdopted(_ generation: UInt64, deadline: ContinuousClock.Instant?) -> Bool {
        AudioThread.assertNotCurrent("ProgramTicket.wait")
        let cyclesStarted = process.pointee.cyclesStarted
        var seenCycles = cyclesStarted.pointee.load(ordering: .relaxed)
        var quietSince = ContinuousClock.now
        while adoptedGeneration < generation {
            let now = ContinuousClock.now
            let cycles = cyclesStarted.pointee.load(ordering: .relaxed)
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
        let gate = process.pointee.cycleGate
        guard gate.pointee.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged else { return false }
        let next = pending.pointee.exchange(nil, ordering: .acquiringAndReleasing)
        let old = process.pointee.install(next)
        gate.pointee.store(0, ordering: .releasing)
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

    /// Has the finish service's thread call `body` after each of its passes, outside
    /// every lock of the engine, and deliver the notices it returns to the listeners:
    /// upkeep that reacts to what the units did (a graph re-compensating a latency that
    /// changed). `body` must not wait for the thread that calls `stopRendering`.
    /// nil removes it. Thread: any.
    public func setUpkeep(_ body: (@Sendable () -> [EngineNotice])?) {
        finishing.setUpkeep(body)
    }

    /// Makes one finish pass on the calling thread: frees retired programs, delivers
    /// notices to listeners. The finish service makes them on its own while rendering;
    /// call it when driving `render` without `startRendering`. Thread: any but audio.
    @discardableResult
    public func finish() -> FinishReport { finishing.pass() }

    /// Runs the upkeep once on the calling thread, as the finish thread does after each
    /// of its passes. Thread: any but audio, never beside a running finish thread.
    public func upkeepPass() { finishing.upkeepPass() }

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

    /// A backend calls this before its first cycle; the finish service starts, and the
    /// render workers when `parallelism` asks for more than one thread. Thread: control.
    public func startRendering() {
        crewSettings.withLock { settings in
            guard settings.crew == nil, settings.parallelism.threads > 1 else { return }
            let crew = RenderCrew(workerCount: settings.parallelism.threads - 1, starter: nil, hooks: settings.hooks)
            settings.crew = crew
            process.pointee.crew = crew.state
        }
        rendering.store(true, ordering: .releasing)
        finishing.start()
    }

    /// A backend calls this after its last cycle; the finish service stops after
    /// delivering everything reported until then, and the render workers end.
    /// Thread: control (not a notice listener).
    public func stopRendering() {
        rendering.store(false, ordering: .releasing)
        finishing.stop()
        let crew = crewSettings.withLock { settings in
            defer { settings.crew = nil }
            return settings.crew
        }
        process.pointee.crew = nil
        crew?.stop()
    }

    // MARK: - Parallel rendering

    private struct CrewSettings {
        var parallelism = Parallelism.off
        var hooks: WorkerHooks?
        var crew: RenderCrew?
    }

    private let crewSettings = Mutex(CrewSettings())

    /// How many threads render a cycle, and how the engine decides to use them. Programs
    /// compiled from now on carry a schedule for this many threads; workers start with
    /// the next `startRendering`. Thread: control.
    public var parallelism: Parallelism {
        get { crewSettings.withLock { $0.parallelism } }
        set { crewSettings.withLock { $0.parallelism = newValue } }
    }

    /// Starts the render workers again with `starter`, when they run: the JACK head node
    /// gives JACK's real-time threads once its client is open, before it activates.
    /// Thread: control, while no cycle runs.
    public func restartWorkers(with starter: @escaping WorkerThreadStarter) {
        crewSettings.withLock { settings in
            guard let old = settings.crew else { return }
            process.pointee.crew = nil
            old.stop()
            let crew = RenderCrew(workerCount: old.state.workerCount, starter: starter, hooks: settings.hooks)
            settings.crew = crew
            process.pointee.crew = crew.state
        }
    }

    /// Calls for each render worker as it starts and ends, from the next
    /// `startRendering` on (tests count allocations with them). Thread: control.
    public func setWorkerHooks(_ hooks: WorkerHooks?) {
        crewSettings.withLock { $0.hooks = hooks }
    }

    /// Whether measured schedules may run in parallel (see `RenderSource.allowParallelCycles`).
    /// Thread: control, while no cycle runs.
    public func allowParallelCycles(_ allowed: Bool) {
        process.pointee.parallelAllowed = allowed
    }

    /// Render workers running now. Thread: any.
    public var workerCount: Int { crewSettings.withLock { $0.crew?.state.workerCount ?? 0 } }

    /// The next notification from the audio thread, if any, taken before any listener
    /// sees it. Thread: any but audio.
    public func nextNotification() -> EngineNotification? { finishing.nextNotification() }

    // MARK: - Audio side

    /// Runs one cycle on the engine's audio-side state. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    public func render(frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers) -> RenderStatus {
        process.pointee.render(frameCount: frameCount, timeStamp: timeStamp, input: input, output: output)
    }

    /// Runs one cycle with a backend's MIDI: `midiInput` its MIDI input ports' events,
    /// `midiOutput` its MIDI output ports (emptied by the caller). Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    public func render(
        frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers,
        midiInput: MIDIInputView?, midiOutput: MIDIBuses = .none
    ) -> RenderStatus {
        process.pointee.render(
            frameCount: frameCount, timeStamp: timeStamp, input: input, output: output, midiInput: midiInput, midiOutput: midiOutput)
    }

    /// The engine's audio side as a backend calls it: no reference to the engine.
    public var renderEntry: RenderEntry? {
        RenderEntry(state: UnsafeMutableRawPointer(process), function: { state, cycle in
            EngineProcess.render(state, cycle)
        })
    }

    /// The transport the kernels read: stopped at 120 BPM in 4/4 until set. Thread:
    /// control, while no backend renders.
    public var transport: TransportClock {
        get { process.pointee.clock }
        set {
            process.pointee.clock = newValue
            process.pointee.transportMirror.pointee.store(newValue.time)
        }
    }

    /// Changes the transport at the start of the next cycle, or at once while no cycle
    /// runs; false when 64 changes already wait for the audio thread. Thread: control.
    @discardableResult
    public func changeTransport(_ command: TransportCommand) -> Bool {
        let pushed = transportProducer.withLock { count -> Bool in
            guard transportCommands.push(command) else { return false }
            count &+= 1
            return true
        }
        guard pushed else { return false }
        // No backend cycles: apply it here, holding the gate a cycle would take.
        let gate = process.pointee.cycleGate
        if !isRendering, gate.pointee.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged {
            process.pointee.applyTransportCommands()
            process.pointee.transportMirror.pointee.store(process.pointee.clock.time)
            process.pointee.transportApplied.pointee.store(process.pointee.transportPopped, ordering: .releasing)
            gate.pointee.store(0, ordering: .releasing)
        }
        return true
    }

    /// MIDI learn: from now on, the first control change on any MIDI input is kept for
    /// `heardController`. Thread: control.
    public func armMIDILearn() { process.pointee.learn.pointee.arm() }

    /// The control change heard since `armMIDILearn` (port, channel 0...15, controller).
    /// Thread: control.
    public var heardController: (port: Int, channel: Int, controller: Int)? { process.pointee.learn.pointee.heardController }

    /// Stops listening for a controller to learn. Thread: control.
    public func disarmMIDILearn() { process.pointee.learn.pointee.disarm() }

    /// The transport as the last cycle left it, once every change asked for is in it
    /// (a cycle at most while rendering; 100 ms at most when cycles stall). Thread: any
    /// but audio.
    public var transportTime: TimeContext {
        let asked = transportProducer.withLock { $0 }
        let deadline = ContinuousClock.now + .milliseconds(100)
        while process.pointee.transportApplied.pointee.load(ordering: .acquiring) < asked, isRendering, ContinuousClock.now < deadline {
            usleep(200)
        }
        return process.pointee.transportMirror.pointee.load()
    }
}
