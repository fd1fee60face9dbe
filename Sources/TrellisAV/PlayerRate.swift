import Synchronization
import TrellisCore
import TrellisTimePitch

/// How a time effect fed by the player node asked it to play: plain memory the unit owns
/// for its whole life. The control side writes the settings and publishes the reading
/// memory once; the kernel reads them at the start of each cycle.
struct PlayerRateSettings: ~Copyable {
    /// Source frames per output frame (a `Double`'s bits).
    let speed = Atomic<UInt64>(1.0.bitPattern)
    /// Whether the pitch stays (time-pitch: the stretcher) or moves with the speed (varispeed).
    let keepsPitch = Atomic<Bool>(true)
    /// Whether a time-pitch moves the pitch, so the stretcher plays even at speed 1.
    let pitchShifted = Atomic<Bool>(false)
    /// The `PlayerRateMemory` the kernel reads at another rate, or 0 until a time effect linked.
    let memory = Atomic<UInt>(0)
    /// The control side's hold on the stretcher while it changes its ratios, and the
    /// kernel's while it uses it: whoever sees the other's flag backs off (the kernel for
    /// one cycle, the control side until the cycle ends).
    let controlHolds = Atomic<Bool>(false)
    let kernelHolds = Atomic<Bool>(false)
}

/// What the kernel reads the timeline into at another rate: a FIFO of source frames per
/// channel for varispeed (cubic interpolation), a stretcher with its scratch for
/// time-pitch. The unit makes it on the control side, in an arena of its own, and lets
/// it go (the stretcher freed) with its render resources, when no program runs the kernel.
struct PlayerRateMemory {
    static var maximumSpeed: Double { 16 }

    let channels: Int
    let maximumFrames: Int
    let fifo: UnsafeMutablePointer<Float>
    let fifoCapacity: Int
    /// Frames in each channel's FIFO, and where the next output frame reads (≥ 1: the
    /// interpolation reads one frame before it).
    var fifoCount = 2
    var position = 1.0
    /// `channels` pointers the timeline writes through.
    let table: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let stretcher: SourceStretcher
    let scratch: UnsafeMutablePointer<Float>
    let inputTable: UnsafeMutablePointer<UnsafePointer<Float>?>
    let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// The mode the last cycle played in, to start afresh when it changes.
    var lastMode = PlayerRateMode.identity

    /// Takes the memory from `memory`, which the unit drops with its render resources.
    /// Thread: control.
    static func make(channels: Int, maximumFrames: Int, sampleRate: Double, timeRatio: Double, pitchScale: Double,
                     in memory: Arena) -> UnsafeMutablePointer<PlayerRateMemory>? {
        let block = max(maximumFrames, 4_096)
        guard let stretcher = SourceStretcher.make(sampleRate: sampleRate, channels: channels, maximumBlock: block,
                                                   timeRatio: timeRatio, pitchScale: pitchScale) else { return nil }
        let capacity = Int(Double(maximumFrames) * maximumSpeed) + 8
        let fifo = memory.take(channels * capacity, repeating: Float(0))
        let scratch = memory.take(channels * block, repeating: Float(0))
        let table = memory.take(channels, repeating: fifo)
        let inputTable = memory.take(channels, repeating: UnsafePointer<Float>?.none)
        let outputTable = memory.take(channels, repeating: UnsafeMutablePointer<Float>?.none)
        return memory.place(PlayerRateMemory(
            channels: channels, maximumFrames: maximumFrames, fifo: fifo, fifoCapacity: capacity, table: table,
            stretcher: stretcher, scratch: scratch, inputTable: inputTable, outputTable: outputTable))
    }

    /// Back to an empty start: two frames of silence before the first, the stretcher reset.
    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    mutating func restart() {
        for channel in 0..<channels { (fifo + channel * fifoCapacity).update(repeating: 0, count: 2) }
        fifoCount = 2
        position = 1
        stretcher.reset()
    }

    /// A 4-point cubic (Catmull-Rom) between `x0` and `x1`, `t` of the way.
    @inline(__always)
    static func interpolate(_ xm1: Float, _ x0: Float, _ x1: Float, _ x2: Float, _ t: Float) -> Float {
        let c1 = 0.5 * (x1 - xm1)
        let c2 = xm1 - 2.5 * x0 + 2 * x1 - 0.5 * x2
        let c3 = 0.5 * (x2 - xm1) + 1.5 * (x0 - x1)
        return ((c3 * t + c2) * t + c1) * t + x0
    }
}

enum PlayerRateMode: UInt8 {
    case identity, varispeed, stretch
}
