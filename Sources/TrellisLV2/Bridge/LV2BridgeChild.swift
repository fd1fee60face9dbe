import CTrellisShim
import Glibc
import Synchronization
import TrellisCore

/// The bridge process's side: hosts one plugin exactly as the host process would (an
/// `LV2PluginUnit`, its kernel, its worker), renders the cycles the host posts in the
/// shared memory on a thread of its own, and answers the host's commands (state,
/// presets, parameters) on the main thread. It dies with its host (`PR_SET_PDEATHSIG`).
public enum LV2BridgeChild {
    /// Runs the bridge on descriptors 3 (shared memory) and 4 (control socket) for the
    /// host `parent`; returns the process's exit status. Thread: the process's main thread.
    public static func run(parent: Int32) -> Int32 {
        guard trellis_die_with_parent() == 0, getppid() == parent else { return 2 }
        let channel = BridgeChannel(descriptor: 4)
        guard let message = channel.receive(), message.command == "setup", let setup = BridgeSetup(text: message.body) else {
            channel.send("error", "the bridge got no valid setup message")
            return 2
        }
        guard let base = BridgeMemory.map(descriptor: 3, size: setup.layout.size) else {
            channel.send("error", "the bridge cannot map the shared memory of \(setup.layout.size) bytes")
            return 2
        }
        let unit: LV2PluginUnit
        do {
            unit = try start(setup)
        } catch {
            channel.send("error", "\(error)")
            return 1
        }
        let renderer = BridgeRenderThread(unit: unit, base: base, layout: setup.layout, realtime: !setup.offline)
        let forwarder = BridgeLogForwarder(unit: unit)
        channel.send("ready", BridgeValues.text(values(of: unit)))
        serve(channel, unit: unit, forwarder: forwarder)
        forwarder.stop()
        renderer.stop()
        unit.uninitialize()
        return 0
    }

    private static func start(_ setup: BridgeSetup) throws -> LV2PluginUnit {
        let world = LV2World(path: setup.searchPath.isEmpty ? nil : setup.searchPath)
        // Every line goes to the host, which hands it on as the node's, as in process.
        world.setLogHandler { message in
            let level: UnitMessage.LogLevel =
                switch message.level {
                case .error: .error
                case .warning: .warning
                case .note: .note
                case .trace: .trace
                }
            BridgeLog.send(level, message.text)
        }
        try world.load(uri: setup.uri)
        let unit = try LV2PluginUnit(world: world, uri: setup.uri)
        for scope in [Scope.input, .output] {
            for element in 0..<unit.elementCount(scope) {
                var format = try unit.format(scope: scope, element: element)
                format.sampleRate = setup.sampleRate
                try unit.setFormat(format, scope: scope, element: element)
            }
        }
        let shape = (unit.busChannels(.input), unit.busChannels(.output), unit.midiBusCount(.output), unit.parameters.count)
        guard shape == (setup.layout.inputChannels, setup.layout.outputChannels, setup.layout.midiOutputCount, setup.layout.parameterCount) else {
            throw LV2Error.bridgeFailed("the plugin here has other buses or parameters than in the host", plugin: setup.uri)
        }
        try unit.setProperty(.maximumFramesPerSlice, .int(setup.layout.maximumFrames), scope: .global, element: 0)
        try unit.setProperty(.offlineRender, .bool(setup.offline), scope: .global, element: 0)
        if let state = setup.state { try unit.restoreState(state) }
        for (index, value) in setup.values where index < unit.parameters.count && unit.parameters[index].isWritable {
            try unit.setParameter(unit.parameters[index].address, value)
        }
        try unit.initialize()
        return unit
    }

    private static func values(of unit: LV2PluginUnit) -> [(Int, Float)] {
        unit.parameters.indices.map { ($0, unit.values[$0]) }
    }

    /// Answers commands until the host says stop or goes away.
    private static func serve(_ channel: BridgeChannel, unit: LV2PluginUnit, forwarder: BridgeLogForwarder) {
        while let message = channel.receive() {
            switch message.command {
            case "save":
                do { channel.send("ok", try unit.saveState()) } catch { channel.send("error", "\(error)") }
            case "restore", "preset":
                do {
                    if message.command == "preset" { try unit.applyPreset(labelOrURI: message.body) } else { try unit.restoreState(message.body) }
                    channel.send("ok", BridgeValues.text(values(of: unit)))
                } catch {
                    channel.send("error", "\(error)")
                }
            case "set":
                do {
                    for (index, value) in BridgeValues.parse(message.body) where index < unit.parameters.count {
                        try unit.setParameter(unit.parameters[index].address, value)
                    }
                    channel.send("ok")
                } catch {
                    channel.send("error", "\(error)")
                }
            case "offline":
                _ = try? unit.setProperty(.offlineRender, .bool(message.body == "1"), scope: .global, element: 0)
                channel.send("ok")
            case "flush":
                forwarder.forward()
                channel.send("ok")
            case "stop":
                return
            default:
                channel.send("error", "unknown command \(message.command)")
            }
        }
    }
}

extension LV2PluginUnit {
    /// The channel counts of a scope's buses. Thread: control.
    func busChannels(_ scope: Scope) -> [Int] {
        (scope == .input ? layout.inputBuses : layout.outputBuses).map(\.ports.count)
    }
}

/// Sends the host what the plugin logs while it runs, every 10 ms: the lines its run()
/// leaves in the render thread's queue, which the host's finish service takes in
/// process. Thread: a thread of its own, until `stop`.
final class BridgeLogForwarder: @unchecked Sendable {
    private let unit: LV2PluginUnit
    private let stopping = Atomic<Bool>(false)
    private let draining = Mutex<Void>(())
    private var thread = pthread_t()
    private var started = false

    init(unit: LV2PluginUnit) {
        self.unit = unit
        started = pthread_create(&thread, nil, { raw in
            let forwarder = Unmanaged<BridgeLogForwarder>.fromOpaque(raw!).takeUnretainedValue()
            forwarder.run()
            return nil
        }, Unmanaged.passUnretained(self).toOpaque()) == 0
    }

    private func run() {
        while !stopping.load(ordering: .acquiring) {
            forward()
            usleep(10_000)
        }
        forward()
    }

    /// Sends what the plugin logged since the last call. Thread: any (one at a time).
    func forward() {
        draining.withLock { _ in
            let dropped = unit.drainMessages { message in
                if case .log(let level, let text) = message { BridgeLog.send(level, text) }
            }
            if dropped > 0 { BridgeLog.send(.warning, "\(dropped) log lines or MIDI messages were lost in the bridge, the queues were full") }
        }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        if started { pthread_join(thread, nil) }
    }
}

/// The bridge's render thread: waits for the host to post a cycle, runs the plugin's
/// kernel over the shared memory, copies the parameter values back, and replies.
final class BridgeRenderThread: @unchecked Sendable {
    private let memory = Arena()
    private let state: UnsafeMutablePointer<BridgeRenderState>
    private var thread = pthread_t()

    init(unit: LV2PluginUnit, base: UnsafeMutableRawPointer, layout: BridgeLayout, realtime: Bool) {
        let view = BridgeView(base: base, layout: layout, in: memory)
        state = memory.place(BridgeRenderState(kernel: unit.renderKernel!, values: unit.values.view, view: view, layout: layout, in: memory))
        let created = pthread_create(&thread, nil, { raw in
            let state = raw!.assumingMemoryBound(to: BridgeRenderState.self)
            let floatState = AudioThread.enter()
            state.pointee.run()
            AudioThread.leave(restoring: floatState)
            return nil
        }, state)
        precondition(created == 0, "cannot start the bridge's render thread")
        if realtime {
            // Real-time, low: ahead of ordinary threads. (Tried at 80, above JACK's
            // clients: a crashing plugin then outlived its deadline, ending as a kill.)
            // Refused without the right, then it runs as it can.
            var parameters = sched_param(sched_priority: 10)
            _ = pthread_setschedparam(thread, SCHED_FIFO, &parameters)
        }
    }

    func stop() {
        state.pointee.stopping.pointee.store(true, ordering: .releasing)
        UnsafeAtomic(state.pointee.view.request).store(UnsafeAtomic(state.pointee.view.request).load() &+ 1)
        futexWakeShared(state.pointee.view.request)
        pthread_join(thread, nil)
    }
}

/// What the bridge's render thread works with: plain memory.
struct BridgeRenderState {
    let kernel: RenderKernel
    let values: ParameterValues
    let view: BridgeView
    let buses: UnsafeMutablePointer<AudioBuffers>
    let segments: UnsafeMutablePointer<AudioBuffers>
    let channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let segmentChannels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let midi: UnsafeMutablePointer<MIDIBuffer>
    let context: UnsafeMutablePointer<RenderContext>
    let stopping: UnsafeMutablePointer<Atomic<Bool>>

    init(kernel: RenderKernel, values: ParameterValues, view: BridgeView, layout: BridgeLayout, in memory: Arena) {
        self.kernel = kernel
        self.values = values
        self.view = view
        stopping = memory.takeAtomics(1, initial: false)
        let busCount = layout.inputChannels.count + layout.outputChannels.count
        let channelCount = layout.inputChannels.reduce(0, +) + layout.outputChannels.reduce(0, +)
        buses = memory.take(busCount)
        segments = memory.take(busCount)
        channels = memory.take(channelCount)
        segmentChannels = memory.take(channelCount)
        var channel = 0
        for (bus, count) in (layout.inputChannels + layout.outputChannels).enumerated() {
            for index in 0..<count {
                let isInput = bus < layout.inputChannels.count
                let inputsBefore = layout.inputChannels.reduce(0, +)
                channels[channel + index] = isInput ? view.input(channel + index) : view.output(channel + index - inputsBefore)
                segmentChannels[channel + index] = channels[channel + index]
            }
            (buses + bus).initialize(to: AudioBuffers(channelPointers: UnsafePointer(channels + channel), channelCount: count))
            (segments + bus).initialize(to: AudioBuffers(channelPointers: UnsafePointer(segmentChannels + channel), channelCount: count))
            channel += count
        }
        midi = memory.take(layout.midiOutputCount)
        for bus in 0..<layout.midiOutputCount { (midi + bus).initialize(to: view.midiOutput(bus)) }
        let inputs = layout.inputChannels.count
        context = memory.place(RenderContext(
            frameCount: 0, timeStamp: AudioTimeStamp(sampleTime: 0),
            inputs: BusBuffers(buses: UnsafePointer(buses), count: inputs),
            outputs: BusBuffers(buses: UnsafePointer(buses + inputs), count: layout.outputChannels.count),
            segmentInputs: BusBuffers(buses: UnsafePointer(segments), count: inputs),
            segmentOutputs: BusBuffers(buses: UnsafePointer(segments + inputs), count: layout.outputChannels.count),
            midiOutputs: MIDIBuses(base: UnsafePointer(midi), count: layout.midiOutputCount)))
    }

    /// Renders each cycle the host posts until stopped. Thread: the bridge's render thread.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func run() {
        let request = UnsafeAtomic(view.request), reply = UnsafeAtomic(view.reply)
        // The last cycle answered (0 at the start): a cycle posted before this thread
        // ran is still seen as new.
        var done = reply.load()
        while true {
            let posted = request.load()
            if stopping.pointee.load(ordering: .acquiring) { return }
            if posted == done {
                futexWaitShared(view.request, while: done, nanoseconds: 1_000_000_000)
                continue
            }
            context.pointee.frameCount = Int(view.frameCount.pointee)
            context.pointee.timeStamp = view.timeStamp.pointee
            context.pointee.time = view.time.pointee
            context.pointee.events = RenderEventList(base: UnsafePointer(view.events), count: Int(view.eventCount.pointee))
            // The plugin's kernel is checked where it is declared; its C run is fenced there.
            view.status.pointee = _unsafePerformance { kernel.render(UnsafePointer(context)) }.rawValue
            for index in 0..<view.parameterCount { view.values[index] = values[index] }
            done = posted
            reply.store(posted)
            futexWakeShared(view.reply)
        }
    }
}
