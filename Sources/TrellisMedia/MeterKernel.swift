import Synchronization
import TrellisCore
import TrellisUnits

/// Peak and average power per channel, AVAudioRecorder's metering: the render thread
/// accumulates, `update()` closes a window and publishes it.
///
/// A window runs from one `update()` to the next. Its peak power is the largest
/// magnitude in it, `20·log10(peak)`; its average power is the RMS of every sample in
/// it, `10·log10(sum of squares / frames)`; both in dBFS and never below -160 (also the
/// value of a window without frames). The render side writes one of two banks, chosen
/// by an epoch; `update()` flips the epoch, waits out a render call that may still be
/// in the old bank (`RenderFence`), reads it and clears it. So the render thread takes
/// no lock and the readers see a whole window. Cheap enough to leave on: a compare and
/// a multiply-add per sample.
public final class MeterKernel: @unchecked Sendable {
    /// The floor of both powers, in dBFS.
    public static let floor = Decibels.floor

    public let channelCount: Int
    private let fence = RenderFence()
    private let epoch = Atomic<Int>(0)
    private let peaks: UnsafeMutablePointer<Float>
    private let sums: UnsafeMutablePointer<Double>
    private let counts: UnsafeMutablePointer<Int>
    private let published: AtomicFloats
    private let updating = Mutex(())

    /// Thread: control.
    public init(channelCount: Int) {
        self.channelCount = channelCount
        peaks = .allocate(capacity: 2 * max(1, channelCount))
        peaks.initialize(repeating: 0, count: 2 * max(1, channelCount))
        sums = .allocate(capacity: 2 * max(1, channelCount))
        sums.initialize(repeating: 0, count: 2 * max(1, channelCount))
        counts = .allocate(capacity: 2)
        counts.initialize(repeating: 0, count: 2)
        published = AtomicFloats(count: 2 * max(1, channelCount), initialValue: Self.floor)
    }

    deinit {
        peaks.deallocate()
        sums.deallocate()
        counts.deallocate()
    }

    /// Adds `frameCount` frames of `bus` from `offset` to the current window; channels
    /// past `channelCount` are ignored. Thread: audio (one thread at a time).
    @inline(__always)
    public func accumulate(_ bus: AudioBuffers, frameCount: Int, offset: Int = 0) {
        fence.enter()
        let bank = epoch.load(ordering: .sequentiallyConsistent)
        let channels = min(channelCount, bus.channelCount)
        for channel in 0..<channels {
            let samples = bus[channel] + offset
            let slot = bank * channelCount + channel
            let level = ChannelLevel.measure(samples, frameCount: frameCount)
            peaks[slot] = Swift.max(peaks[slot], level.peak)
            sums[slot] += Double(level.sumOfSquares)
        }
        counts[bank] += frameCount
        fence.leave()
    }

    /// Closes the window and publishes its powers, as `updateMeters()` does.
    /// Thread: control (any thread but audio).
    public func update() {
        updating.withLock { _ in
            let bank = epoch.load(ordering: .relaxed)
            epoch.store(1 - bank, ordering: .sequentiallyConsistent)
            fence.waitForRenderToLeave()
            let frames = counts[bank]
            for channel in 0..<channelCount {
                let slot = bank * channelCount + channel
                published[2 * channel] = Decibels.fromAmplitude(peaks[slot])
                published[2 * channel + 1] = frames > 0 ? Decibels.fromMeanSquare(Float(sums[slot] / Double(frames))) : Self.floor
                peaks[slot] = 0
                sums[slot] = 0
            }
            counts[bank] = 0
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
