import CJack
import CTrellisShim
import Synchronization
import TrellisCore

/// Everything JACK's process and notification threads touch, allocated once when the head
/// node is made and kept alive by it for as long as any JACK client may call back.
///
/// The process thread never allocates, locks or logs here: ports and channel tables are
/// preallocated, counters and meters are atomics, and messages leave through rings.
final class JACKRealtimeState: @unchecked Sendable {
    let source: any RenderSource
    /// How the process thread reaches the source: its entry, or a bridge to `render`.
    private let entry: RenderEntry
    private let bridge: UnsafeMutablePointer<BridgedRenderSource>
    /// The port and channel tables, meters and text below, freed with the state.
    private let memory = Arena()
    let prepare: BackendPrepare

    let inputCount: Int
    let outputCount: Int
    let midiCount: Int
    let midiOutputCount: Int
    /// `jack_port_t` pointers, replaced only while no client is active.
    let inputPorts: UnsafeMutablePointer<OpaquePointer?>
    let outputPorts: UnsafeMutablePointer<OpaquePointer?>
    let midiPorts: UnsafeMutablePointer<OpaquePointer?>
    let midiOutputPorts: UnsafeMutablePointer<OpaquePointer?>
    private let inputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let midi: MIDIEventList
    private let midiInputView: MIDIInputView
    private let midiWriter: MIDIEventWriter
    /// What the render source writes to the MIDI output ports each cycle.
    private let midiOutput: MIDIBufferStorage
    private let midiOutputBuses: MIDIBuses

    /// Producer: the process thread.
    let processEvents: SPSCRing<JACKRealtimeEvent>
    /// Its end, which the process thread pushes to.
    private let processEventsEnd: SPSCRingEnd<JACKRealtimeEvent>
    /// Producer: JACK's notification thread.
    let notificationEvents: SPSCRing<JACKRealtimeEvent>

    /// The largest cycle the render source is ready for; larger cycles output silence.
    let preparedFrames = Atomic<Int>(0)
    let preparedSampleRate = Atomic<Int>(0)
    let bufferFrames = Atomic<Int>(0)
    let sampleRate = Atomic<Int>(0)

    let cycles = Atomic<Int>(0)
    let silencedCycles = Atomic<Int>(0)
    /// The open `/dev/cpu_dma_latency` the cycle holds at 0 µs while it runs, or -1
    /// (`CPULatencyPolicy.auto`, while the program runs isolated plugins).
    let cycleCPULatency = Atomic<Int32>(-1)
    /// When the last cycle started (host ns) and its period (ns): when the next is due.
    let lastCycleStart = Atomic<UInt64>(0)
    let lastCyclePeriod = Atomic<UInt64>(0)
    let xruns = Atomic<Int>(0)
    let freewheeling = Atomic<Bool>(false)
    /// Running totals since the client started: time spent in cycles and the periods'
    /// time, in ns. A status read takes the mean load over its window from their growth
    /// since the last read (`loadWindowStart`); the last mean is kept for reads with no
    /// cycle between.
    let loadBusyNanoseconds = Atomic<Int>(0)
    let loadPeriodNanoseconds = Atomic<Int>(0)
    /// The totals at the last status read. Thread: control.
    private let loadWindowStart = Mutex((busy: 0, period: 0))
    let dspLoadBits = Atomic<UInt32>(0)
    let dspLoadPeakBits = Atomic<UInt32>(0)
    /// Per output channel, the largest magnitude since the last status read. Non-negative
    /// floats order like their bit patterns, so an integer max keeps the peak.
    let peakBits: UnsafeMutablePointer<Atomic<UInt32>>

    /// Set by JACK's shutdown callback, which may run on either of JACK's threads.
    let serverLost = Atomic<Bool>(false)
    /// The graph latency last given to JACK's latency callback.
    let publishedLatency = Atomic<Int>(0)
    /// The sample time the next cycle starts at, for starts scheduled from control.
    let nextSampleTime = Atomic<Int64>(0)
    private let lossClaimed = Atomic<Bool>(false)
    private let lossReasonText: UnsafeMutablePointer<CChar>
    private let lossReasonCapacity = 256

    /// The message of the last failed prepare, written on a notification thread.
    let lastPrepareError = Mutex<String>("")

    /// The tempo and meter a timebase master announces.
    let timebase: JACKTimebase
    /// Whether `process` follows JACK transport, and announces bars and beats to it.
    let followsTransport: Bool
    let isTimebaseMaster: Bool
    /// The client, for `jack_transport_query`; set while the client is inactive.
    var client: OpaquePointer?

    // Touched by the process thread only.
    private var sampleTime: Int64 = 0
    private var silenceReason: JACKSilenceReason?

    init(configuration: JACKConfiguration, source: any RenderSource,
         prepare: @escaping BackendPrepare) {
        self.source = source
        // Owner: this state, whose deinit frees it (it holds the source, so no arena).
        bridge = .allocate(capacity: 1)
        bridge.initialize(to: BridgedRenderSource(source: source))
        entry = source.renderEntry ?? RenderEntry(state: UnsafeMutableRawPointer(bridge), function: BridgedRenderSource.entry)
        self.prepare = prepare
        followsTransport = configuration.transport != .none
        isTimebaseMaster = configuration.transport == .master
        inputCount = configuration.inputChannels
        outputCount = configuration.outputChannels
        midiCount = configuration.midiInputs
        midiOutputCount = configuration.midiOutputs
        inputPorts = memory.take(max(1, inputCount), repeating: nil)
        outputPorts = memory.take(max(1, outputCount), repeating: nil)
        midiPorts = memory.take(max(1, midiCount), repeating: nil)
        midiOutputPorts = memory.take(max(1, midiOutputCount), repeating: nil)
        inputTable = memory.take(inputCount)
        outputTable = memory.take(outputCount)
        midi = MIDIEventList(eventCapacity: configuration.midiEventCapacity, byteCapacity: configuration.midiByteCapacity)
        midiInputView = midi.view
        midiWriter = midi.writer
        midiOutput = MIDIBufferStorage(count: midiOutputCount, capacity: configuration.midiEventCapacity)
        midiOutputBuses = midiOutput.buses
        processEvents = SPSCRing(capacity: 256)
        processEventsEnd = processEvents.end
        notificationEvents = SPSCRing(capacity: 1024)
        peakBits = memory.takeAtomics(outputCount, initial: 0)
        lossReasonText = memory.take(lossReasonCapacity, repeating: 0)
        timebase = JACKTimebase(in: memory)
    }

    deinit {
        bridge.deinitialize(count: 1)
        bridge.deallocate()
    }

    // MARK: Process thread

    /// One JACK cycle: gather the port buffers, pull the render source for exactly
    /// `nframes`, meter, and time it. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func process(_ nframes: jack_nframes_t) -> Int32 {
        let start = JACKProcessCalls.now()
        // Idle CPUs poll while the cycle runs, so the threads it wakes start in a few µs.
        let cpuLatency = cycleCPULatency.load(ordering: .relaxed)
        if cpuLatency >= 0 { JACKProcessCalls.requestCPULatency(cpuLatency, 0) }
        JACKProcessCalls.enterCycle()
        #if TRELLIS_REALTIME_PROBE
        // scripts/check-realtime builds this once to see the checker refuse it.
        let probe = [Int(nframes)]
        if probe.isEmpty { return 1 }
        #endif
        let frames = Int(nframes)

        for channel in 0..<inputCount {
            inputTable[channel] = JACKProcessCalls.buffer(inputPorts[channel], nframes).unsafelyUnwrapped.assumingMemoryBound(to: Float.self)
        }
        for channel in 0..<outputCount {
            outputTable[channel] = JACKProcessCalls.buffer(outputPorts[channel], nframes).unsafelyUnwrapped.assumingMemoryBound(to: Float.self)
        }
        if midiCount > 0 { gatherMIDI(nframes) }
        for port in 0..<midiOutputCount { midiOutputBuses[port].clear() }

        let input = AudioBuffers(channelPointers: UnsafePointer(inputTable), channelCount: inputCount)
        let output = AudioBuffers(channelPointers: UnsafePointer(outputTable), channelCount: outputCount)
        let timeStamp = AudioTimeStamp(sampleTime: sampleTime, hostTime: start)
        sampleTime += Int64(frames)
        nextSampleTime.store(sampleTime, ordering: .relaxed)

        var transport: ExternalTransport?
        if followsTransport, let client { transport = JACKProcessCalls.queryTransport(client, takingBars: !isTimebaseMaster) }
        let cycle = BackendCycle(
            frameCount: frames, timeStamp: timeStamp, input: input, output: output,
            midiInput: midiCount > 0 ? midiInputView : nil, midiOutput: midiOutputBuses,
            transport: transport,
            clock: isTimebaseMaster ? timebase.clock : nil)
        // The entry is checked where it is defined (the engine's program runner).
        let entry = self.entry
        var reason: JACKSilenceReason?
        // PipeWire's JACK may run a larger cycle before the buffer-size notice arrives.
        if frames > preparedFrames.load(ordering: .acquiring) {
            reason = .framesExceedPrepared
        } else if withUnsafePointer(to: cycle, { cycle in _unsafePerformance { entry.render(cycle) } }) != .ok {
            reason = .renderFailed
        } else if !meter(output, frames: frames) {
            reason = .nonFiniteOutput
        }
        if midiOutputCount > 0 { sendMIDI(nframes, silenced: reason != nil) }
        if let reason {
            output.clear(frameCount: frames)
            silencedCycles.wrappingAdd(1, ordering: .relaxed)
            if silenceReason != reason {
                _ = processEventsEnd.push(.silenced(reason, frames: nframes))
            }
        } else if silenceReason != nil {
            _ = processEventsEnd.push(.resumed)
        }
        silenceReason = reason
        cycles.wrappingAdd(1, ordering: .relaxed)
        if cpuLatency >= 0 { JACKProcessCalls.requestCPULatency(cpuLatency, CPULatencyRequest.released) }

        let rate = sampleRate.load(ordering: .relaxed)
        if rate > 0 && frames > 0 {
            let elapsed = Int(truncatingIfNeeded: JACKProcessCalls.now() &- start)
            let period = frames &* 1_000_000_000 / rate
            lastCycleStart.store(start, ordering: .relaxed)
            lastCyclePeriod.store(UInt64(period), ordering: .relaxed)
            loadBusyNanoseconds.wrappingAdd(elapsed, ordering: .relaxed)
            loadPeriodNanoseconds.wrappingAdd(period, ordering: .relaxed)
            let load = Float(elapsed) / Float(period)
            dspLoadPeakBits.max(load.bitPattern, ordering: .relaxed)
        }
        return 0
    }

    /// Records each channel's peak; returns false when a sample is NaN or infinite.
    @inline(__always)
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    private func meter(_ output: AudioBuffers, frames: Int) -> Bool {
        var finite = true
        for channel in 0..<outputCount {
            let samples = output[channel]
            var peak: Float = 0
            for index in 0..<frames {
                let magnitude = abs(samples[index])
                finite = finite && magnitude < .infinity
                peak = magnitude > peak ? magnitude : peak
            }
            if !finite { return false }
            peakBits[channel].max(peak.bitPattern, ordering: .relaxed)
        }
        return true
    }

    /// Writes what the render source put in the MIDI output buffers to the ports (JACK
    /// wants every output port's buffer cleared each cycle, events in time order).
    @inline(__always)
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    private func sendMIDI(_ nframes: jack_nframes_t, silenced: Bool) {
        for port in 0..<midiOutputCount {
            let events = midiOutputBuses[port]
            // What the render source had no room for in the port's list, and what the
            // port's own buffer takes no more of.
            var lost = events.takeDropped()
            defer {
                if lost > 0 { _ = processEventsEnd.push(.midiDropped(port: UInt16(truncatingIfNeeded: port), output: true, count: UInt32(truncatingIfNeeded: lost))) }
            }
            guard let buffer = JACKProcessCalls.buffer(midiOutputPorts[port], nframes) else { continue }
            JACKProcessCalls.clearMIDI(buffer)
            guard !silenced else { continue }
            for index in 0..<events.count {
                let event = events[index]
                let time = jack_nframes_t(min(max(0, Int(event.offset)), Int(nframes) - 1))
                guard let bytes = JACKProcessCalls.reserveMIDI(buffer, time, Int(event.length)) else {
                    lost &+= events.count &- index
                    break
                }
                bytes[0] = event.status
                if event.length > 1 { bytes[1] = event.data1 }
                if event.length > 2 { bytes[2] = event.data2 }
            }
        }
    }

    @inline(__always)
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    private func gatherMIDI(_ nframes: jack_nframes_t) {
        let midi = midiWriter
        midi.reset()
        var event = jack_midi_event_t()
        for port in 0..<midiCount {
            guard let buffer = JACKProcessCalls.buffer(midiPorts[port], nframes) else { continue }
            let droppedBefore = midi.droppedCount
            defer {
                if midi.droppedCount > droppedBefore {
                    _ = processEventsEnd.push(.midiDropped(port: UInt16(truncatingIfNeeded: port), output: false,
                                                    count: UInt32(truncatingIfNeeded: midi.droppedCount &- droppedBefore)))
                }
            }
            let count = JACKProcessCalls.midiEventCount(buffer)
            // A plain loop: iterating a Range<UInt32> allocates in unoptimized builds.
            var index: UInt32 = 0
            while index < count {
                if JACKProcessCalls.midiEvent(&event, buffer, index), let data = event.buffer {
                    midi.append(frame: Int(event.time), port: port, data: data, size: event.size)
                }
                index += 1
            }
        }
    }

    // MARK: Notification thread

    /// Re-prepares the render source when JACK's period or rate changed, then lets the
    /// process thread run cycles of the new size. Thread: JACK notification or control.
    @discardableResult
    func reprepare(frames: Int, rate: Int) -> Bool {
        bufferFrames.store(frames, ordering: .relaxed)
        sampleRate.store(rate, ordering: .relaxed)
        if frames == preparedFrames.load(ordering: .relaxed) && rate == preparedSampleRate.load(ordering: .relaxed) {
            return true
        }
        let settings = BackendSettings(maximumFrames: frames, sampleRate: Double(rate))
        do {
            try prepare(settings)
        } catch {
            let message = String(describing: error)
            lastPrepareError.withLock { $0 = message }
            return false
        }
        preparedSampleRate.store(rate, ordering: .relaxed)
        preparedFrames.store(frames, ordering: .releasing)
        return true
    }

    /// Thread: JACK notification.
    func bufferSizeChanged(_ nframes: jack_nframes_t) {
        let previous = bufferFrames.load(ordering: .relaxed)
        let rate = sampleRate.load(ordering: .relaxed)
        if !reprepare(frames: Int(nframes), rate: rate) {
            notificationEvents.push(.prepareFailed(frames: nframes, sampleRate: UInt32(truncatingIfNeeded: rate)))
        }
        if previous != Int(nframes) {
            notificationEvents.push(.bufferSize(frames: nframes))
        }
    }

    /// Thread: JACK notification (and once on the control thread when the callback is set).
    func sampleRateChanged(_ rate: jack_nframes_t) {
        let previous = sampleRate.load(ordering: .relaxed)
        let frames = bufferFrames.load(ordering: .relaxed)
        if !reprepare(frames: frames, rate: Int(rate)) {
            notificationEvents.push(.prepareFailed(frames: UInt32(truncatingIfNeeded: frames), sampleRate: rate))
        }
        if previous != Int(rate) {
            notificationEvents.push(.sampleRate(rate))
        }
    }

    /// Thread: JACK notification.
    func xrun() {
        xruns.wrappingAdd(1, ordering: .relaxed)
        notificationEvents.push(.xrun)
    }

    /// JACK's latency callback. Every audio port is on the one path through the graph,
    /// so each output adds the graph's latency to the widest range of the inputs
    /// (capture), and each input adds it to the widest range of the outputs (playback).
    /// Thread: JACK notification.
    func publishLatency(_ mode: jack_latency_callback_mode_t) {
        let latency = source.latencyFrames
        publishedLatency.store(latency, ordering: .relaxed)
        let capture = mode == JackCaptureLatency
        let (from, fromCount) = capture ? (inputPorts, inputCount) : (outputPorts, outputCount)
        let (to, toCount) = capture ? (outputPorts, outputCount) : (inputPorts, inputCount)
        var widest: jack_latency_range_t?
        for index in 0..<fromCount {
            guard let port = from[index] else { continue }
            var range = jack_latency_range_t()
            jack_port_get_latency_range(port, mode, &range)
            widest = widest.map { jack_latency_range_t(min: Swift.min($0.min, range.min), max: Swift.max($0.max, range.max)) } ?? range
        }
        let added = UInt32(clamping: latency)
        var range = widest ?? jack_latency_range_t(min: 0, max: 0)
        range.min &+= added
        range.max &+= added
        for index in 0..<toCount {
            guard let port = to[index] else { continue }
            jack_port_set_latency_range(port, mode, &range)
        }
    }

    /// Thread: JACK notification.
    func freewheelChanged(_ on: Bool) {
        freewheeling.store(on, ordering: .relaxed)
        notificationEvents.push(.freewheel(on))
    }

    /// Remembers why the server went away. Calls no JACK function, allocates nothing.
    /// Thread: any of JACK's threads, possibly two at once.
    func serverWentAway(reason: UnsafePointer<CChar>?) {
        guard !lossClaimed.exchange(true, ordering: .acquiring) else { return }
        lossReasonText[0] = 0
        if let reason {
            var index = 0
            while index < lossReasonCapacity - 1 && reason[index] != 0 {
                lossReasonText[index] = reason[index]
                index += 1
            }
            lossReasonText[index] = 0
        }
        serverLost.store(true, ordering: .releasing)
    }

    // MARK: Control thread

    /// The reason the server gave when it went away. Thread: control, after `serverLost`.
    func lossReason() -> String {
        let reason = String(cString: lossReasonText)
        return reason.isEmpty ? "the JACK server went away" : reason
    }

    /// Lets the next client's shutdown be recorded. Thread: control, once the old client is closed.
    func clearLoss() {
        serverLost.store(false, ordering: .relaxed)
        lossClaimed.store(false, ordering: .releasing)
    }

    /// Clears what a new session of cycles should not inherit. Thread: control, client inactive.
    func resetForNewClient() {
        preparedFrames.store(0, ordering: .relaxed)
        preparedSampleRate.store(0, ordering: .relaxed)
        freewheeling.store(false, ordering: .relaxed)
        silenceReason = nil
    }

    /// Reads and resets the output peaks, the mean DSP load and its peak. Thread: control.
    func takePeaks() -> (outputs: [Float], dspLoad: Float, dspLoadPeak: Float) {
        let outputs = (0..<outputCount).map { Float(bitPattern: peakBits[$0].exchange(0, ordering: .relaxed)) }
        let (busy, period) = loadWindowStart.withLock { start in
            let now = loadTotals()
            defer { start = now }
            return (now.busy &- start.busy, now.period &- start.period)
        }
        if period > 0 { dspLoadBits.store(Float(Double(busy) / Double(period)).bitPattern, ordering: .relaxed) }
        return (outputs, Float(bitPattern: dspLoadBits.load(ordering: .relaxed)), Float(bitPattern: dspLoadPeakBits.exchange(0, ordering: .relaxed)))
    }

    /// The same as `takePeaks` without closing the window: what the next read will
    /// reset is left to it. Thread: control.
    func peekPeaks() -> (outputs: [Float], dspLoad: Float, dspLoadPeak: Float) {
        let outputs = (0..<outputCount).map { Float(bitPattern: peakBits[$0].load(ordering: .relaxed)) }
        return (outputs, Float(bitPattern: dspLoadBits.load(ordering: .relaxed)), Float(bitPattern: dspLoadPeakBits.load(ordering: .relaxed)))
    }

    /// Time spent in cycles and the periods' time since the client started, in ns.
    /// Thread: any.
    func loadTotals() -> (busy: Int, period: Int) {
        (loadBusyNanoseconds.load(ordering: .relaxed), loadPeriodNanoseconds.load(ordering: .relaxed))
    }
}

/// Runs a render source that has no entry of its own (test sources) through `render`.
struct BridgedRenderSource {
    unowned(unsafe) let source: any RenderSource

    static let entry: RenderEntryFunction = { state, cycle in
        let call = cycle.assumingMemoryBound(to: BackendCycle.self).pointee
        return state.assumingMemoryBound(to: BridgedRenderSource.self).pointee.source.render(
            frameCount: call.frameCount, timeStamp: call.timeStamp, input: call.input, output: call.output).rawValue
    }
}
