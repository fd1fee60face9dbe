import Synchronization
import TrellisCore
import TrellisEngine

/// One buffer a tap delivers. `buffers` is valid only during the callback.
public struct TapBuffer: @unchecked Sendable {
    public var buffers: AudioBuffers
    public var frameCount: Int
    /// The graph time of the first frame.
    public var timeStamp: AudioTimeStamp
    /// Frames lost just before this buffer because the consumer fell behind.
    public var droppedFrames: Int
}

/// Hands a bus to a callback on a normal thread in buffers of a fixed size:
/// AVAudioNode's `installTap`. Install with `graph.addObserver(tap, node:, bus:)`;
/// remove with `graph.removeObserver(_:)` at any time, rendering or not.
///
/// The render thread copies the bus into a ring of `queueDepth` buffers and never
/// waits; the tap's own thread calls `callback` with each full buffer, in order. When
/// the callback is slower than the audio, the ring fills and frames are dropped: the
/// next delivered buffer says how many (its time stamp shows the gap) and
/// `droppedFrames` counts them all. Offline, `waitForStreaming` keeps the ring from
/// filling, so nothing is dropped. The callback must not hold the tap strongly (the
/// tap's thread would then never end).
public final class Tap: BusObserver, OfflineStreaming, @unchecked Sendable {
    public let bufferSize: Int
    public let channelCount: Int
    private let core: TapCore
    private let thread: ServiceThread
    private let ownsThread: Bool
    private let kernel: UnsafeMutablePointer<TapKernel>
    /// The kernel and its drop counter.
    private let memory = Arena(firstBlock: 256)

    /// A tap delivering `bufferSize` frames of up to `channelCount` channels at a time.
    /// The ring holds `queueDepth` buffers. Thread: control.
    /// With `sharedDelivery`, one thread delivers every such tap's buffers, up to 40 ms
    /// late (for consumers that need not be prompt, such as loudness meters: many taps,
    /// one thread); else the tap has a thread of its own, 2 ms at most behind.
    public convenience init(channelCount: Int, bufferSize: Int = 4096, queueDepth: Int = 8, sharedDelivery: Bool = false,
                            callback: @escaping @Sendable (TapBuffer) -> Void) {
        self.init(channelCount: channelCount, bufferSize: bufferSize, queueDepth: queueDepth,
                  sharing: sharedDelivery ? Self.sharedThread : nil, callback: callback)
    }

    /// The thread that delivers the taps made with `sharedDelivery`.
    private static let sharedThread = ServiceThread(name: "trellis-taps", intervalNanoseconds: 40_000_000)

    /// A tap delivered by `sharing`, a thread that serves many (its interval is their
    /// latency), or by a thread of its own when nil. Thread: control.
    private init(channelCount: Int, bufferSize: Int, queueDepth: Int, sharing shared: ServiceThread?, callback: @escaping @Sendable (TapBuffer) -> Void) {
        self.bufferSize = max(1, bufferSize)
        self.channelCount = max(1, channelCount)
        core = TapCore(slotCount: max(2, queueDepth), frameCapacity: self.bufferSize, channelCount: self.channelCount, callback: callback)
        kernel = memory.place(TapKernel(ring: core.ring, bufferSize: self.bufferSize, channelCount: self.channelCount,
                                        dropped: makeAtomicCell(0, in: memory)))
        ownsThread = shared == nil
        thread = shared ?? ServiceThread(name: "trellis-tap", intervalNanoseconds: 2_000_000)
        thread.add(core) { $0.deliver() }
    }

    /// Stops the delivery (after the callback in progress); the ring goes with the core.
    /// Runs on the control side once the graph has retired the last program using it.
    deinit {
        if ownsThread { thread.stop() } else { thread.remove(core) }
    }

    /// The program runs the tap's kernel directly. Thread: control.
    public var observerKernel: ObserverKernel {
        ObserverKernel(state: UnsafeMutableRawPointer(kernel), observe: { TapKernel.observe($0, $1) })
    }

    /// Frames dropped so far because the consumer fell behind. Thread: any.
    public var droppedFrames: Int { kernel.pointee.dropped.pointee.load(ordering: .relaxed) }

    /// Buffers delivered so far. Thread: any.
    public var deliveredBuffers: Int { core.delivered.load(ordering: .relaxed) }

    /// Taps a slice outside a program. Thread: audio.
    public func observe(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        kernel.pointee.observe(ObservedSlice(bus: bus, frameCount: frameCount, timeStamp: timeStamp))
    }

    /// Waits until the ring has room for `frameCount` more frames. Thread: the rendering
    /// thread, between cycles.
    public func waitForStreaming(frameCount: Int) {
        let deadline = HostClock.now() + 30_000_000_000
        while HostClock.now() < deadline {
            if kernel.pointee.room >= frameCount { return }
            thread.wake()
            sleepBriefly()
        }
    }
}

/// What the tap's thread owns: the ring's consumer side and the callback.
final class TapCore: @unchecked Sendable {
    let ring: FrameRing
    let callback: @Sendable (TapBuffer) -> Void
    let delivered = Atomic<Int>(0)

    /// The ring, which goes after the tap and the last pass of its thread let go.
    private let memory = Arena()

    init(slotCount: Int, frameCapacity: Int, channelCount: Int, callback: @escaping @Sendable (TapBuffer) -> Void) {
        ring = FrameRing(slotCount: slotCount, frameCapacity: frameCapacity, channelCount: channelCount, in: memory)
        self.callback = callback
    }

    /// Delivers every full buffer, oldest first. Thread: the tap's thread.
    func deliver() -> Bool {
        var any = false
        while let slot = ring.readableSlot() {
            let header = ring.header(slot).pointee
            callback(TapBuffer(buffers: ring.buffers(slot), frameCount: header.frameCount, timeStamp: header.timeStamp, droppedFrames: header.dropped))
            ring.release()
            delivered.add(1, ordering: .relaxed)
            any = true
        }
        return any
    }
}
