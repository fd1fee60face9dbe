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
    private let retired: SPSCRing<UnsafeMutableRawPointer>
    private let events: SPSCRing<ParameterEvent>
    private let eventProducer = Mutex(())
    /// Notifications from the audio thread; drain with `nextNotification`.
    public let notifications: SPSCRing<EngineNotification>

    /// The audio thread's state, reached through `process`.
    private let processStorage: EngineProcessStorage
    private let process: UnsafeMutablePointer<EngineProcess>
    private var pending: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>> { process.pointee.pending }

    /// Where incoming MIDI comes from (the JACK head node's MIDI ports). Set it before
    /// the backend starts. Thread: control, while not rendering.
    public var midiInput: MIDIInputView? {
        get { process.pointee.midiInput }
        set { process.pointee.midiInput = newValue }
    }

    /// Thread: control.
    public init(eventCapacity: Int = 4096) {
        retired = SPSCRing(capacity: 64)
        events = SPSCRing(capacity: eventCapacity)
        notifications = SPSCRing(capacity: 1024)
        processStorage = EngineProcessStorage(EngineProcess(retired: retired.end, queue: events.end, notifications: notifications.end))
        process = processStorage.state
    }

    deinit {
        collectRetired()
        if let program = pending.pointee.exchange(nil, ordering: .acquiringAndReleasing) {
            Unmanaged<RenderProgram>.fromOpaque(program).release()
        }
        if let current = process.pointee.current { Unmanaged<RenderProgram>.fromOpaque(current).release() }
    }

    // MARK: - Control side

    /// Hands a program to the audio thread; it is adopted at the start of the next
    /// cycle. A program published before and not yet adopted is freed here, since the
    /// audio thread never saw it. Thread: control.
    public func publish(_ program: RenderProgram) {
        let opaque = Unmanaged.passRetained(program).toOpaque()
        if let displaced = pending.pointee.exchange(opaque, ordering: .acquiringAndReleasing) {
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
    public var hasPendingProgram: Bool { pending.pointee.load(ordering: .acquiring) != nil }

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

    /// Runs one cycle on the engine's audio-side state. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    public func render(frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers) -> RenderStatus {
        process.pointee.render(frameCount: frameCount, timeStamp: timeStamp, input: input, output: output)
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
        set { process.pointee.clock = newValue }
    }
}
