import Synchronization
import TrellisCore
import TrellisEngine

/// What the recorder's control side and its render side share: flags and counters in
/// memory `FileRecorder` owns; each side holds a pointer.
struct RecorderShared: ~Copyable {
    /// 0 idle, 1 recording, 2 paused.
    let renderState = Atomic<Int>(0)
    let take = Atomic<UInt64>(0)
    let startTime = Atomic<Int64>(Int64.min)
    let frameLimit = Atomic<Int64>(-1)
    let finishedTake = Atomic<UInt64>(0)
    let droppedFrames = Atomic<Int>(0)
    let fence: RenderFence

    init(fence: RenderFence) { self.fence = fence }
}

/// The render side of a `FileRecorder`, as a unit (passing its input through) and as an
/// observer: meters the bus and, while recording, copies the frames inside the take's
/// window into the ring. Plain memory in the recorder's arena, made in `init`.
/// Thread: audio (the rendering thread between cycles for offline waits).
struct RecorderKernel: SliceObserving {
    let shared: UnsafeMutablePointer<RecorderShared>
    let events: SPSCRingEnd<RecorderEvent>
    let meter: MeterBanks
    /// Set by the control side while nothing records (see `FileRecorder`); read only
    /// after `renderState` says recording.
    var ring: FrameRing?
    var currentTake: UInt64 = 0
    var recorded: Int64 = 0
    var takeStart: Int64 = .min
    var takeLimit: Int64 = -1
    var takeFinished = false

    init(shared: UnsafeMutablePointer<RecorderShared>, events: SPSCRingEnd<RecorderEvent>, meter: MeterBanks) {
        self.shared = shared
        self.events = events
        self.meter = meter
    }

    /// Thread: audio.
    @inline(__always)
    mutating func observe(_ slice: ObservedSlice) {
        capture(slice.bus, frameCount: slice.frameCount, timeStamp: slice.timeStamp)
    }

    /// Thread: audio.
    @inline(__always)
    mutating func capture(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        meter.accumulate(bus, frameCount: frameCount)
        shared.pointee.fence.enter()
        defer { shared.pointee.fence.leave() }
        guard shared.pointee.renderState.load(ordering: .sequentiallyConsistent) == 1, let ring else { return }
        let takeNow = shared.pointee.take.load(ordering: .relaxed)
        if takeNow != currentTake {
            currentTake = takeNow
            recorded = 0
            takeStart = shared.pointee.startTime.load(ordering: .relaxed)
            takeLimit = shared.pointee.frameLimit.load(ordering: .relaxed)
            takeFinished = false
        }
        guard !takeFinished else { return }
        let now = timeStamp.sampleTime
        var first = 0
        if takeStart != .min {
            if takeStart >= now &+ Int64(frameCount) { return }
            first = max(0, Int(takeStart &- now))
        }
        var count = frameCount &- first
        if takeLimit >= 0 { count = min(count, Int(takeLimit &- recorded)) }
        var done = 0
        while done < count {
            guard let slot = ring.writableSlot() else {
                let lost = count &- done
                shared.pointee.droppedFrames.wrappingAdd(lost, ordering: .relaxed)
                _ = events.push(RecorderEvent(sampleTime: now &+ Int64(first &+ done), frames: lost))
                break
            }
            let frames = min(ring.frameCapacity, count &- done)
            ChannelMapping.map(bus, from: first &+ done, to: ring.buffers(slot), frameCount: frames)
            ring.header(slot).pointee.frameCount = frames
            ring.header(slot).pointee.timeStamp = AudioTimeStamp(sampleTime: now &+ Int64(first &+ done), hostTime: timeStamp.hostTime)
            ring.commit()
            done &+= frames
        }
        recorded &+= Int64(count)
        if takeLimit >= 0 && recorded >= takeLimit {
            takeFinished = true
            shared.pointee.finishedTake.store(currentTake, ordering: .releasing)
        }
    }
}

extension RecorderKernel {
    /// The unit's entry: passes the input through and records it. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        let context = context.assumingMemoryBound(to: RenderContext.self).pointee
        let input = context.inputs[0]
        context.outputs[0].copy(from: input, frameCount: context.frameCount)
        state.assumingMemoryBound(to: RecorderKernel.self).pointee
            .capture(input, frameCount: context.frameCount, timeStamp: context.timeStamp)
        return RenderStatus.ok.rawValue
    }

    /// The observer's entry: records the watched bus. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func observe(_ state: UnsafeMutableRawPointer, _ slice: UnsafeRawPointer) {
        observeSlice(state, slice)
    }
}
