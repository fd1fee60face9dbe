import Glibc
import Synchronization
import TrellisCore

/// Peak and RMS of a bus per channel over a window: from one `read()` to the next.
/// Install with `Graph.addObserver`; the control side reads whole windows.
///
/// The audio thread accumulates into one of two banks, chosen by an epoch it reads
/// after entering a fence; `read()` flips the epoch, waits out a render call that may
/// still be in the old bank, then reads and clears it. The audio thread never waits.
public final class LevelMeter: BusObserver, @unchecked Sendable {
    /// The floor of both levels, in dBFS.
    public static let floor: Float = -160

    /// One window's levels, in dBFS, per channel.
    public struct Levels: Sendable, Equatable {
        public var peak: [Float]
        public var average: [Float]
        /// Frames the window saw (0 when nothing rendered).
        public var frames: Int
    }

    public let channelCount: Int
    private let inside = Atomic<UInt64>(0)
    private let epoch = Atomic<Int>(0)
    private let peaks: UnsafeMutablePointer<Float>
    private let sums: UnsafeMutablePointer<Double>
    private let counts: UnsafeMutablePointer<Int>
    private let reading = Mutex(())
    private let observed = Atomic<Int>(0)

    /// Thread: control.
    public init(channelCount: Int) {
        self.channelCount = max(1, channelCount)
        peaks = .allocate(capacity: 2 * self.channelCount)
        peaks.initialize(repeating: 0, count: 2 * self.channelCount)
        sums = .allocate(capacity: 2 * self.channelCount)
        sums.initialize(repeating: 0, count: 2 * self.channelCount)
        counts = .allocate(capacity: 2)
        counts.initialize(repeating: 0, count: 2)
    }

    deinit {
        peaks.deallocate()
        sums.deallocate()
        counts.deallocate()
    }

    /// Thread: audio.
    public func observe(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        inside.add(1, ordering: .sequentiallyConsistent)
        let bank = epoch.load(ordering: .sequentiallyConsistent)
        for channel in 0..<min(channelCount, bus.channelCount) {
            let samples = bus[channel]
            let slot = bank * channelCount + channel
            var peak = peaks[slot]
            var sum: Float = 0
            for frame in 0..<frameCount {
                let x = samples[frame]
                peak = Swift.max(peak, Swift.abs(x))
                sum += x * x
            }
            peaks[slot] = peak
            sums[slot] += Double(sum)
        }
        counts[bank] += frameCount
        inside.add(1, ordering: .releasing)
        observed.add(frameCount, ordering: .relaxed)
    }

    /// Every frame seen since the meter was made: lets a reader wait for a first window.
    /// Thread: any.
    public var framesObserved: Int { observed.load(ordering: .relaxed) }

    /// Closes the window and returns its levels. Thread: control (never audio).
    public func read() -> Levels {
        reading.withLock { _ in
            let bank = epoch.load(ordering: .relaxed)
            epoch.store(1 - bank, ordering: .sequentiallyConsistent)
            // An odd count means a render call is inside and may still use the old bank.
            let seen = inside.load(ordering: .sequentiallyConsistent)
            if seen & 1 == 1 {
                while inside.load(ordering: .acquiring) == seen { sched_yield() }
            }
            let frames = counts[bank]
            var levels = Levels(peak: [], average: [], frames: frames)
            for channel in 0..<channelCount {
                let slot = bank * channelCount + channel
                levels.peak.append(Self.decibels(amplitude: Double(peaks[slot])))
                levels.average.append(frames > 0 ? Self.decibels(power: sums[slot] / Double(frames)) : Self.floor)
                peaks[slot] = 0
                sums[slot] = 0
            }
            counts[bank] = 0
            return levels
        }
    }

    static func decibels(amplitude: Double) -> Float {
        guard amplitude > 0 else { return floor }
        return Swift.max(floor, Float(20 * log10(amplitude)))
    }

    static func decibels(power: Double) -> Float {
        guard power > 0, power.isFinite else { return floor }
        return Swift.max(floor, Float(10 * log10(power)))
    }
}
