import CTrellisShim
import Glibc
import Synchronization
import TrellisCore

/// The host's half of a bridged plugin's cycle, run by the program like any kernel:
/// copies the cycle (input samples, events, time) into the shared memory, wakes the
/// bridge, waits for its reply until the deadline, and copies the outputs back.
///
/// A cycle the bridge answers past its deadline outputs silence (or its input,
/// `passesInputOnFault`), and the bridge keeps the shared memory until it answers
/// (`BridgeBacklog`). When it answers nothing in time for `BridgeBacklog.hangNanoseconds`
/// (offline: once), or its process died, the node is faulted: it outputs so from then
/// on, without waiting, until the control side restarts the bridge. Plain memory, owned
/// by `LV2Bridge`.
struct BridgeKernel: CallKernel {
    enum Fault: Int32 {
        case none = 0
        /// The audio thread gave up waiting (set here).
        case missedDeadline = 1
        /// The bridge process ended or could not start (set by the control side).
        case processEnded = 2
    }

    let view: BridgeView
    /// A `Fault` raw value. The control side clears it after a restart.
    let fault: UnsafeMutablePointer<Atomic<Int32>>
    /// Nanoseconds the bridge may take per frame: live a fraction of the period, offline
    /// a generous fixed time per cycle (`offlineDeadlineNanoseconds`).
    let deadlinePerFrame: UnsafeMutablePointer<Atomic<Int>>
    /// The duration of a frame: live, no wait lasts past the end of the cycle's period
    /// (a reply after it is no use, and waits for several bridges must not add up).
    let nanosecondsPerFrame: Int
    let offline: UnsafeMutablePointer<Atomic<Bool>>
    /// The sample time of the last cycle run while not faulted: when the watcher finds
    /// the process gone, the time of the fault.
    let cycleSampleTime: UnsafeMutablePointer<Atomic<Int64>>
    /// The bridge process, killed from here the moment it misses its deadline: a hung
    /// real-time thread would hold a core until the watcher got to it.
    let process: UnsafeMutablePointer<Atomic<Int32>>
    let passesInputOnFault: Bool
    /// The host unit's parameter values; the bridge's output parameters (meters,
    /// latency) are copied in after each cycle.
    let values: ParameterValues
    let outputParameters: UnsafeMutablePointer<Int32>
    let outputParameterCount: Int
    let backlog: UnsafeMutablePointer<BridgeBacklog>

    static let offlineDeadlineNanoseconds: UInt64 = 2_000_000_000
    /// How long the audio thread spins for the reply before it sleeps on it.
    static let spinNanoseconds: UInt64 = 200_000

    /// The kernel's render entry. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderCall(state, context)
    }

    @inline(__always)
    func render(_ context: RenderContext) -> RenderStatus {
        let frames = min(context.frameCount, view.maximumFrames)
        guard fault.pointee.load(ordering: .acquiring) == Fault.none.rawValue else {
            outputOnFault(context, frames: frames)
            return .ok
        }
        cycleSampleTime.pointee.store(context.timeStamp.sampleTime, ordering: .relaxed)
        // Still busy with a cycle it answered late, the bridge owns the shared memory.
        guard UnsafeAtomic(view.reply).load() == view.request.pointee else {
            return late(context, frames: frames, now: hostNanoseconds())
        }
        var channel = 0
        for bus in 0..<min(context.inputs.count, view.inputBusCount) {
            let buffers = context.inputs[bus]
            for index in 0..<min(buffers.channelCount, view.inputChannels(bus)) {
                copySamples(from: buffers[index], to: view.input(channel &+ index), count: frames)
            }
            channel &+= view.inputChannels(bus)
        }
        let held = backlog.pointee.eventCount
        for index in 0..<held { view.events[index] = backlog.pointee.events[index] }
        backlog.pointee.eventCount = 0
        let eventCount = min(held &+ context.events.count, BridgeLayout.eventCapacity)
        for index in held..<eventCount { view.events[index] = context.events[index &- held] }
        view.eventCount.pointee = Int32(eventCount)
        view.frameCount.pointee = Int32(frames)
        view.timeStamp.pointee = context.timeStamp
        view.time.pointee = context.time
        for bus in 0..<view.midiOutputCount { view.midiOutput(bus).clear() }

        let started = hostNanoseconds()
        switch post(frames: frames, started: started, cycleStart: context.timeStamp.hostTime) {
        case .answered:
            backlog.pointee.lateSince = 0
        case .faulted:
            outputOnFault(context, frames: frames)
            return .ok
        case .late:
            if backlog.pointee.lateSince == 0 { backlog.pointee.lateSince = started }
            // This cycle's events went with it.
            return late(context, frames: frames, now: hostNanoseconds(), holding: false)
        }

        channel = 0
        for bus in 0..<min(context.outputs.count, view.outputBusCount) {
            let buffers = context.outputs[bus]
            for index in 0..<min(buffers.channelCount, view.outputChannels(bus)) {
                copySamples(from: view.output(channel &+ index), to: buffers[index], count: frames)
            }
            channel &+= view.outputChannels(bus)
        }
        for bus in 0..<min(view.midiOutputCount, context.midiOutputs.count) {
            let sent = view.midiOutput(bus), target = context.midiOutputs[bus]
            for index in 0..<min(sent.count, BridgeLayout.midiCapacity) {
                let event = sent[index]
                target.append(status: event.status, data1: event.data1, data2: event.data2, length: event.length, offset: event.offset)
            }
        }
        for index in 0..<outputParameterCount {
            let parameter = Int(outputParameters[index])
            values[parameter] = view.values[parameter]
        }
        return RenderStatus(rawValue: view.status.pointee) ?? .failed
    }

    enum Reply { case answered, late, faulted }

    /// Wakes the bridge and waits for its reply until the deadline, or until the
    /// process ended.
    @inline(__always)
    private func post(frames: Int, started: UInt64, cycleStart: UInt64) -> Reply {
        var allowed = deadline(frames: frames)
        let cycleEnd = cycleStart &+ UInt64(nanosecondsPerFrame &* frames)
        if !offline.pointee.load(ordering: .relaxed), cycleStart != 0, cycleStart <= started {
            allowed = min(allowed, cycleEnd > started ? cycleEnd &- started : 0)
        }
        let ticket = view.request.pointee &+ 1
        UnsafeAtomic(view.request).store(ticket)
        futexWakeShared(view.request)
        while true {
            if UnsafeAtomic(view.reply).load() == ticket { return .answered }
            if fault.pointee.load(ordering: .acquiring) != Fault.none.rawValue { return .faulted }
            let elapsed = hostNanoseconds() &- started
            if elapsed >= allowed { return .late }
            // Spinning answers within a microsecond of the reply, where a futex wake
            // of this thread costs tens; past the spin, it sleeps to the deadline.
            if elapsed < Self.spinNanoseconds {
                spinHintShared()
                continue
            }
            let seen = UnsafeAtomic(view.reply).load()
            if seen == ticket { return .answered }
            futexWaitShared(view.reply, while: seen, nanoseconds: allowed &- elapsed)
        }
    }

    @inline(__always)
    private func deadline(frames: Int) -> UInt64 {
        offline.pointee.load(ordering: .relaxed)
            ? Self.offlineDeadlineNanoseconds
            : UInt64(deadlinePerFrame.pointee.load(ordering: .relaxed) &* frames)
    }

    /// A cycle the bridge did not answer in time: output as on a fault, and fault the
    /// node when the bridge has answered nothing in time for too long (offline: at once).
    @inline(__always)
    private func late(_ context: RenderContext, frames: Int, now: UInt64, holding: Bool = true) -> RenderStatus {
        if holding { backlog.pointee.hold(context.events) }
        let limit = max(BridgeBacklog.hangNanoseconds, 2 &* deadline(frames: frames))
        if offline.pointee.load(ordering: .relaxed) || now &- backlog.pointee.lateSince >= limit {
            if fault.pointee.compareExchange(expected: Fault.none.rawValue, desired: Fault.missedDeadline.rawValue, ordering: .acquiringAndReleasing).exchanged {
                killProcess(process.pointee.load(ordering: .acquiring))
            }
        } else {
            backlog.pointee.lateCycles.pointee.add(1, ordering: .relaxed)
        }
        outputOnFault(context, frames: frames)
        return .ok
    }

    @inline(__always)
    private func outputOnFault(_ context: RenderContext, frames: Int) {
        for bus in 0..<context.outputs.count {
            let output = context.outputs[bus]
            guard passesInputOnFault, bus < context.inputs.count, context.inputs[bus].channelCount == output.channelCount else {
                output.clear(frameCount: frames)
                continue
            }
            let input = context.inputs[bus]
            for channel in 0..<output.channelCount where input[channel] != output[channel] {
                copySamples(from: input[channel], to: output[channel], count: frames)
            }
        }
    }
}

/// An atomic view of a word in shared memory (the futex words).
struct UnsafeAtomic {
    let pointer: UnsafeMutablePointer<UInt32>

    @inline(__always)
    init(_ pointer: UnsafeMutablePointer<UInt32>) { self.pointer = pointer }

    @inline(__always)
    private var atomic: UnsafeMutablePointer<Atomic<UInt32>> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: Atomic<UInt32>.self)
    }

    @inline(__always)
    func load() -> UInt32 { atomic.pointee.load(ordering: .acquiring) }

    @inline(__always)
    func store(_ value: UInt32) { atomic.pointee.store(value, ordering: .releasing) }
}

// The C calls a bridged cycle makes on the audio thread, fenced for the real-time
// checker: a vDSO clock read, the spin hint, and the two futex calls (one wake, at
// most a few waits, per cycle).

@inline(__always)
func hostNanoseconds() -> UInt64 { _unsafePerformance { trellis_host_time_ns() } }

/// SIGKILL to a bridge that missed its deadline: one system call, once per fault.
@inline(__always)
func killProcess(_ pid: Int32) {
    guard pid > 0 else { return }
    _ = _unsafePerformance { kill(pid, SIGKILL) }
}

@inline(__always)
func spinHintShared() { _unsafePerformance { trellis_cpu_relax() } }

@inline(__always)
func futexWakeShared(_ word: UnsafeMutablePointer<UInt32>) { _unsafePerformance { trellis_futex_wake_shared(word, 1) } }

@inline(__always)
func futexWaitShared(_ word: UnsafeMutablePointer<UInt32>, while expected: UInt32, nanoseconds: UInt64) {
    _ = _unsafePerformance { trellis_futex_wait_shared(word, expected, nanoseconds) }
}
