import CJack
import CTrellisJACKShim
import CTrellisShim
import Glibc
import Synchronization
import TrellisCore

/// The JACK I/O unit (`auou/jack/trls`): one JACK client whose capture ports are the input
/// element and whose playback ports are the output element. Its process callback is the
/// head node of the graph: each cycle it pulls the render source for exactly the frames
/// JACK asks for.
///
/// The head node follows the JACK life cycle as an audio session would: it re-prepares the
/// render source when the period or rate changes, counts xruns, reports connection changes
/// as route changes, and when the server goes away it keeps the graph, waits for the
/// server, reconnects, restores its connections and carries on. Listeners hear about all
/// of it on the head node's control thread.
///
/// Thread: control for every method unless its comment says otherwise.
public final class JACKHeadNode: AudioBackend, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.output, subtype: "jack", manufacturer: Manufacturer.trellis)
    public static let shortName = "jack"

    public let configuration: JACKConfiguration
    let state: JACKRealtimeState
    let control = Mutex(ControlState())
    let info: Mutex<Info>
    let outbox = Mutex<[JACKEvent]>([])
    let listeners = Mutex<[Int: @Sendable (JACKEvent) -> Void]>([:])
    let nextListener = Atomic<Int>(1)
    let keepRunning = Atomic<Bool>(false)
    let threadSlot = Mutex<ControlThread?>(nil)
    let cpuLatency = CPULatencyRequest()
    /// Sets the cycles' request ahead of each cycle while it is open under `auto`.
    let wakeAhead = Mutex<CPUWakeAhead?>(nil)
    /// Whether the running program runs isolated plugins (see `programRunsIsolatedUnits`).
    let runsIsolatedUnits = Atomic<Bool>(false)

    /// What the control side knows about the client; guarded by `control`.
    struct ControlState: ~Copyable {
        var client: OpaquePointer?
        var phase = JACKStatus.Phase.stopped
        var clientName = ""
        /// Our connections as last seen, by our short port name and the peer's full name.
        var links: Set<PortLink> = []
        /// Connections to restore when their peer appears.
        var pending: Set<PortLink> = []
        /// Connections that went away in the last seconds, and when: JACK may tell of a
        /// departing port's connections a pass before it tells of the port.
        var vanished: [PortLink: UInt64] = [:]
        var nextRetry: UInt64 = 0
    }

    /// What `status()` reads without waiting for JACK calls; guarded by `info`.
    struct Info {
        var phase = JACKStatus.Phase.stopped
        var clientName = ""
        var interruptions = 0
        var connections: [PortConnection] = []
    }

    struct PortLink: Hashable {
        var port: String
        var peer: String
    }

    /// A head node that will pull `source`. `prepare` readies the source for a period and
    /// rate; it is called before the first cycle and again whenever JACK's period or rate
    /// changes (on the control thread or JACK's notification thread, never concurrently,
    /// never on the audio thread), and must not call back into this head node.
    public init(
        configuration: JACKConfiguration, source: any RenderSource,
        prepare: @escaping BackendPrepare
    ) throws(JACKError) {
        guard configuration.inputChannels >= 0, configuration.outputChannels >= 0, configuration.midiInputs >= 0,
              configuration.midiOutputs >= 0 else {
            throw .invalidConfiguration("port counts must not be negative")
        }
        guard !configuration.clientName.isEmpty else {
            throw .invalidConfiguration("the client name is empty")
        }
        self.configuration = configuration
        state = JACKRealtimeState(configuration: configuration, source: source, prepare: prepare)
        info = Mutex(Info(clientName: configuration.clientName))
    }

    deinit { stop() }

    /// The MIDI events of the current cycle, for the render source to read while it
    /// renders. Thread: audio (reading its contents); any (taking the reference).
    public var midiInput: MIDIEventList { state.midi }

    /// The name of the server this head node joins.
    public var serverName: String { configuration.serverName ?? JACKServer.defaultServerName }

    // MARK: Life cycle

    /// Opens the client, registers its ports, prepares the render source, activates, and
    /// makes the configured connections (a connection that fails is a warning event, not
    /// an error). Starts no server. Thread: control.
    public func start() throws(JACKError) {
        JACKMessages.install()
        var events: [JACKEvent] = []
        let result: Result<Void, JACKError> = control.withLock { control in
            guard control.phase == .stopped else { return .failure(.alreadyStarted(client: configuration.clientName)) }
            var status = jack_status_t(rawValue: 0)
            let opened = JACKMessages.quietly {
                trellis_jack_client_open(configuration.clientName, JackNoStartServer, &status, configuration.serverName)
            }
            guard let client = opened else {
                if status.rawValue & JackServerFailed.rawValue != 0 {
                    return .failure(.serverNotRunning(server: serverName))
                }
                return .failure(.clientOpenFailed(client: configuration.clientName, server: serverName, status: status.rawValue))
            }
            do throws(JACKError) {
                try setUp(client)
            } catch {
                jack_client_close(client)
                return .failure(error)
            }
            control.client = client
            control.phase = .running
            control.clientName = String(cString: jack_get_client_name(client))
            connectConfigured(&control, events: &events)
            rescanLinks(&control, events: &events)
            return .success(())
        }
        try result.get()
        post(events)
        keepRunning.store(true, ordering: .relaxed)
        threadSlot.withLock { slot in
            if slot == nil {
                slot = ControlThread.start { [self] in runControlLoop() }
            }
        }
    }

    /// Deactivates and closes the client and stops the control thread. Listeners hear
    /// nothing more. Thread: control (not a listener).
    public func stop() {
        keepRunning.store(false, ordering: .relaxed)
        let thread = threadSlot.withLock { slot in
            let thread = slot
            slot = nil
            return thread
        }
        thread?.join()
        // The control thread is gone, so this is now the rings' only consumer.
        while state.processEvents.pop() != nil {}
        while state.notificationEvents.pop() != nil {}
        control.withLock { control in
            if let client = control.client {
                JACKMessages.quietly {
                    jack_deactivate(client)
                    jack_client_close(client)
                }
            }
            control.client = nil
            state.client = nil
            control.phase = .stopped
            control.links = []
            control.pending = []
            publishInfo(control)
        }
        wakeAhead.withLock { wakeAhead in
            wakeAhead?.stop()
            wakeAhead = nil
        }
        cpuLatency.close(slot: state.cycleCPULatency)
        outbox.withLock { $0.removeAll() }
    }

    /// Registers ports, installs callbacks, prepares the render source and activates a
    /// freshly opened client. Thread: control.
    func setUp(_ client: OpaquePointer) throws(JACKError) {
        state.resetForNewClient()
        let name = String(cString: jack_get_client_name(client))
        let frames = Int(jack_get_buffer_size(client))
        let rate = Int(jack_get_sample_rate(client))
        if !state.reprepare(frames: frames, rate: rate) {
            let settings = BackendSettings(maximumFrames: frames, sampleRate: Double(rate))
            throw .prepareFailed(settings: settings, message: state.lastPrepareError.withLock { $0 })
        }
        let context = Unmanaged.passUnretained(state).toOpaque()
        state.client = client
        jack_set_process_callback(client, JACKCallbacks.process, context)
        jack_set_buffer_size_callback(client, JACKCallbacks.bufferSize, context)
        jack_set_sample_rate_callback(client, JACKCallbacks.sampleRate, context)
        jack_set_xrun_callback(client, JACKCallbacks.xrun, context)
        jack_set_freewheel_callback(client, JACKCallbacks.freewheel, context)
        jack_set_port_connect_callback(client, JACKCallbacks.portConnect, context)
        jack_set_port_registration_callback(client, JACKCallbacks.portRegistration, context)
        jack_set_latency_callback(client, JACKCallbacks.latency, context)
        jack_on_info_shutdown(client, JACKCallbacks.shutdown, context)
        jack_on_shutdown(client, JACKCallbacks.plainShutdown, context)

        let audio = JACKPortKind.audioType, midi = JACKPortKind.midiType
        let input = UInt(JackPortIsInput.rawValue), output = UInt(JackPortIsOutput.rawValue)
        func register(_ names: [String], type: String, flags: UInt, into handles: UnsafeMutablePointer<OpaquePointer?>) throws(JACKError) {
            for (index, port) in names.enumerated() {
                guard let handle = jack_port_register(client, port, type, flags, 0) else {
                    throw .portRegistrationFailed(port: port, client: name)
                }
                handles[index] = handle
            }
        }
        try register(configuration.inputPortNames, type: audio, flags: input, into: state.inputPorts)
        try register(configuration.outputPortNames, type: audio, flags: output, into: state.outputPorts)
        try register(configuration.midiInputPortNames, type: midi, flags: input, into: state.midiPorts)
        try register(configuration.midiOutputPortNames, type: midi, flags: output, into: state.midiOutputPorts)
        let realtime = jack_is_realtime(client) != 0
        state.source.allowParallelCycles(realtime)
        if realtime {
            // Render workers as JACK's own real-time threads, at the process thread's priority.
            let priority = jack_client_real_time_priority(client)
            let handle = JACKClientHandle(client: client)
            state.source.restartWorkers { entry, context in
                var thread = jack_native_thread_t()
                guard jack_client_create_thread(handle.client, &thread, priority, 1, entry, context) == 0 else { return nil }
                return thread
            }
        }
        if realtime, configuration.cpuLatency != .off {
            if cpuLatency.open() {
                if configuration.cpuLatency == .hold { cpuLatency.hold(true) }
                if configuration.cpuLatency == .auto {
                    cpuLatency.holdDuringCycles(runsIsolatedUnits.load(ordering: .relaxed), slot: state.cycleCPULatency)
                    wakeAhead.withLock { wakeAhead in
                        if wakeAhead == nil { wakeAhead = CPUWakeAhead(state: state) }
                    }
                }
            } else {
                post([.warning(.cpuLatencyRefused(reason: "\(cpuLatency.state)"))])
            }
        }
        let activated = jack_activate(client)
        if activated != 0 { throw .activationFailed(client: name, code: activated) }
        // Unconditionally: a session asked to be the master takes over from another.
        if configuration.transport == .master { jack_set_timebase_callback(client, 0, JACKCallbacks.timebase, context) }
    }

    // MARK: Status and control

    /// JACK's period and rate as the render source was last prepared for them.
    /// Thread: any.
    public var settings: BackendSettings? {
        let frames = state.preparedFrames.load(ordering: .relaxed)
        let rate = state.preparedSampleRate.load(ordering: .relaxed)
        return frames > 0 && rate > 0 ? BackendSettings(maximumFrames: frames, sampleRate: Double(rate)) : nil
    }

    /// A snapshot of the head node; reading it closes the window of the mean DSP load and
    /// the peak meters, unless `peek` leaves them to the next read. Thread: control.
    public func status(peek: Bool = false) -> JACKStatus {
        let info = info.withLock { $0 }
        let peaks = peek ? state.peekPeaks() : state.takePeaks()
        let totals = state.loadTotals()
        return JACKStatus(
            phase: info.phase,
            clientName: info.clientName,
            serverName: serverName,
            sampleRate: Double(state.sampleRate.load(ordering: .relaxed)),
            bufferFrames: state.bufferFrames.load(ordering: .relaxed),
            preparedFrames: state.preparedFrames.load(ordering: .relaxed),
            dspLoad: peaks.dspLoad,
            dspLoadPeak: peaks.dspLoadPeak,
            busyNanoseconds: totals.busy,
            periodNanoseconds: totals.period,
            xrunCount: state.xruns.load(ordering: .relaxed),
            cycleCount: state.cycles.load(ordering: .relaxed),
            silencedCycleCount: state.silencedCycles.load(ordering: .relaxed),
            outputPeaks: peaks.outputs,
            freewheeling: state.freewheeling.load(ordering: .relaxed),
            interruptionCount: info.interruptions,
            connections: info.connections,
            cpuLatency: state.cycleCPULatency.load(ordering: .relaxed) >= 0 ? .heldDuringCycles : cpuLatency.state
        )
    }

    /// Turns JACK's freewheel mode on or off (the whole server runs as fast as it can,
    /// unsynchronized to the clock). Thread: control.
    public func setFreewheel(_ on: Bool) throws(JACKError) {
        let code: Int32? = control.withLock { control in
            guard let client = control.client else { return nil }
            return jack_set_freewheel(client, on ? 1 : 0)
        }
        guard let code else { throw .notRunning(client: configuration.clientName) }
        if code != 0 { throw .freewheelFailed(client: configuration.clientName, enable: on, code: code) }
    }

    /// Tells the head node whether the running program runs isolated plugins, whose
    /// processes each cycle wakes: under `CPULatencyPolicy.auto` idle CPUs are kept
    /// responsive around its cycles while it does. Thread: any.
    public func programRunsIsolatedUnits(_ runs: Bool) {
        runsIsolatedUnits.store(runs, ordering: .relaxed)
        if configuration.cpuLatency == .auto { cpuLatency.holdDuringCycles(runs, slot: state.cycleCPULatency) }
    }

    // MARK: Listeners

    /// The graph sample time the next cycle starts at: a time a start scheduled now can
    /// still make, given some lead. Thread: any.
    public var nextCycleSampleTime: Int64 { state.nextSampleTime.load(ordering: .relaxed) }

    /// Adds a listener; it runs on the head node's control thread, never on the audio
    /// thread. Returns a token for `removeListener`. Thread: any.
    @discardableResult
    public func addListener(_ listener: @escaping @Sendable (JACKEvent) -> Void) -> Int {
        let token = nextListener.wrappingAdd(1, ordering: .relaxed).oldValue
        listeners.withLock { $0[token] = listener }
        return token
    }

    /// Thread: any.
    public func removeListener(_ token: Int) {
        listeners.withLock { _ = $0.removeValue(forKey: token) }
    }

    /// Queues events for the control thread to deliver. Thread: control.
    func post(_ events: [JACKEvent]) {
        guard !events.isEmpty else { return }
        outbox.withLock { $0.append(contentsOf: events) }
    }

    /// Thread: the head node's control thread.
    func deliver(_ events: [JACKEvent]) {
        guard !events.isEmpty else { return }
        let current = listeners.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
        for event in events {
            for listener in current { listener(event) }
        }
    }

    func publishInfo(_ control: borrowing ControlState) {
        let name = control.clientName.isEmpty ? configuration.clientName : control.clientName
        let connections = control.links
            .map { PortConnection(port: "\(name):\($0.port)", peer: $0.peer) }
            .sorted { ($0.port, $0.peer) < ($1.port, $1.peer) }
        let phase = control.phase
        info.withLock { info in
            info.phase = phase
            info.clientName = name
            info.connections = connections
        }
    }
}

/// The kinds of port the head node registers.
enum JACKPortKind {
    static let audioType = "32 bit float mono audio"
    static let midiType = "8 bit raw midi"

    case audioInput, audioOutput, midiInput, midiOutput

    static let all: [JACKPortKind] = [.audioInput, .audioOutput, .midiInput, .midiOutput]

    var type: String { self == .midiInput || self == .midiOutput ? Self.midiType : Self.audioType }
    /// Whether our port sends (an output port) rather than receives.
    var sends: Bool { self == .audioOutput || self == .midiOutput }
    /// The flag a peer port must carry to connect to ours.
    var peerFlag: JackPortFlags { sends ? JackPortIsInput : JackPortIsOutput }
}

/// A client handed to a thread starter, which runs on the control thread that holds it.
private struct JACKClientHandle: @unchecked Sendable {
    let client: OpaquePointer
}
