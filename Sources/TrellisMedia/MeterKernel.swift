import Synchronization
import TrellisCore
import TrellisEngine
import TrellisUnits

/// Peak and average power per channel, AVAudioRecorder's metering: the render thread
/// accumulates into `MeterBanks`, `update()` closes a window and publishes it.
///
/// A window runs from one `update()` to the next. Its peak power is the largest
/// magnitude in it, `20·log10(peak)`; its average power is the RMS of every sample in
/// it, `10·log10(sum of squares / frames)`; both in dBFS and never below -160 (also the
/// value of a window without frames). The render side writes one of two banks, chosen
/// by an epoch; `update()` flips the epoch, waits out a render call that may still be
/// in the old bank (`RenderFence`), reads it and clears it. So the render thread takes
/// no lock and the readers see a whole window. Cheap enough to leave on: a compare and
/// a multiply-add per sample.
///
/// The object is the control side and owns the banks' memory.
public final class MeterKernel: @unchecked Sendable {
    /// The floor of both powers, in dBFS.
    public static let floor = Decibels.floor

    public let channelCount: Int
    /// What the render thread writes. Valid while this object lives.
    let banks: MeterBanks
    private let published: AtomicFloats
    private let updating = Mutex(())
    /// The banks' block.
    private let memory = Arena(firstBlock: 1024)

    /// Thread: control.
    public init(channelCount: Int) {
        self.channelCount = channelCount
        banks = MeterBanks(channelCount: channelCount, in: memory)
        published = AtomicFloats(count: 2 * max(1, channelCount), initialValue: Self.floor)
    }

    /// The kernel a program runs to meter a bus. Thread: control.
    var observerKernel: ObserverKernel {
        ObserverKernel(state: UnsafeMutableRawPointer(banks.head), observe: { MeterBanks.observe($0, $1) })
    }

    /// Adds `frameCount` frames of `bus` from `offset` to the current window; channels
    /// past `channelCount` are ignored. Thread: audio (one thread at a time).
    @inline(__always)
    public func accumulate(_ bus: AudioBuffers, frameCount: Int, offset: Int = 0) {
        banks.accumulate(bus, frameCount: frameCount, offset: offset)
    }

    /// Closes the window and publishes its powers, as `updateMeters()` does.
    /// Thread: control (any thread but audio).
    public func update() {
        updating.withLock { _ in
            let bank = banks.epoch.pointee.load(ordering: .relaxed)
            banks.epoch.pointee.store(1 - bank, ordering: .sequentiallyConsistent)
            banks.fence.waitForRenderToLeave()
            let frames = banks.counts[bank]
            for channel in 0..<channelCount {
                let slot = bank * channelCount + channel
                published[2 * channel] = Decibels.fromAmplitude(banks.peaks[slot])
                published[2 * channel + 1] = frames > 0 ? Decibels.fromMeanSquare(Float(banks.sums[slot] / Double(frames))) : Self.floor
                banks.peaks[slot] = 0
                banks.sums[slot] = 0
            }
            banks.counts[bank] = 0
        }
    }

    /// The peak of the last window in dBFS. Thread: any.
    public func peakPower(forChannel channel: Int) -> Float {
        guard channel >= 0 && channel < channelCount else { return Self.floor }
        return published[2 * channel]
    }

    /// The RMS of the last window in dBFS. Thread: any.
    public func averagePower(forChannel channel: Int) -> Float {
        guard channel >= 0 && channel < channelCount else { return Self.floor }
        return published[2 * channel + 1]
    }
}

/// The render side of a meter: two banks of per-channel peaks and sums of squares, the
/// epoch that picks the bank being written, and the fence `update()` waits on. All of it
/// lies in one block of memory, this struct's own copy at its head (the observer's
/// state), so that a render call touches two or three cache lines, not six allocations.
/// The block lives in `MeterKernel`'s arena.
struct MeterBanks: SliceObserving, BitwiseCopyable, @unchecked Sendable {
    let channelCount: Int
    let fence: RenderFence
    let epoch: AtomicCell<Int>
    let peaks: UnsafeMutablePointer<Float>
    let sums: UnsafeMutablePointer<Double>
    let counts: UnsafeMutablePointer<Int>
    /// The block, beginning with a copy of this struct.
    let head: UnsafeMutablePointer<MeterBanks>

    /// Thread: control.
    init(channelCount: Int, in memory: Arena) {
        let slots = 2 * max(1, channelCount)
        // head | fence counter | epoch | counts[2] | sums[slots] | peaks[slots]
        let headBytes = (MemoryLayout<MeterBanks>.size + 7) & ~7
        let bytes = headBytes + 8 + 8 + 2 * 8 + slots * 8 + slots * 4
        let block = memory.takeBytes(bytes, alignment: 64)
        var offset = headBytes
        func take(_ size: Int) -> UnsafeMutableRawPointer {
            defer { offset += size }
            return block + offset
        }
        self.channelCount = channelCount
        fence = RenderFence(at: take(8).bindMemory(to: Atomic<UInt64>.self, capacity: 1))
        epoch = take(8).bindMemory(to: Atomic<Int>.self, capacity: 1)
        epoch.initialize(to: Atomic(0))
        counts = take(2 * 8).bindMemory(to: Int.self, capacity: 2)
        counts.initialize(repeating: 0, count: 2)
        sums = take(slots * 8).bindMemory(to: Double.self, capacity: slots)
        sums.initialize(repeating: 0, count: slots)
        peaks = take(slots * 4).bindMemory(to: Float.self, capacity: slots)
        peaks.initialize(repeating: 0, count: slots)
        head = block.bindMemory(to: MeterBanks.self, capacity: 1)
        head.initialize(to: self)
    }

    /// Adds the slice to the current window. Thread: audio.
    @inline(__always)
    func observe(_ slice: ObservedSlice) { accumulate(slice.bus, frameCount: slice.frameCount) }

    /// Adds `frameCount` frames of `bus` from `offset` to the current window.
    /// Thread: audio (one thread at a time).
    @inline(__always)
    func accumulate(_ bus: AudioBuffers, frameCount: Int, offset: Int = 0) {
        fence.enter()
        let bank = epoch.pointee.load(ordering: .sequentiallyConsistent)
        let channels = min(channelCount, bus.channelCount)
        var channel = 0
        while channel < channels {
            let slot = bank &* channelCount &+ channel
            let level = ChannelLevel.measure(bus[channel] + offset, frameCount: frameCount)
            if level.peak > peaks[slot] { peaks[slot] = level.peak }
            sums[slot] += Double(level.sumOfSquares)
            channel &+= 1
        }
        counts[bank] &+= frameCount
        fence.leave()
    }
}

extension MeterBanks {
    /// The observer entry of a `BusMeter`. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func observe(_ state: UnsafeMutableRawPointer, _ slice: UnsafeRawPointer) {
        observeSlice(state, slice)
    }
}
