import Synchronization
import TrellisAnalysis
import TrellisCore
import TrellisEngine

/// A bus's loudness by EBU R128, live: momentary, short-term and integrated loudness,
/// range and true peak since it was installed or last reset. Install with
/// `graph.addObserver(_:path:bus:)` like a `BusMeter`.
///
/// The render thread only copies the bus into a tap's ring; one shared thread measures
/// every bus's loudness (`LoudnessMeter`) 20 ms behind. Thread: control, except where
/// said.
public final class BusLoudness: BusObserver, @unchecked Sendable {
    /// Serves every loudness tap; its interval is how far behind a reading may be.
    private static let thread = ServiceThread(name: "trellis-loudness", intervalNanoseconds: 10_000_000)
    private let tap: Tap
    private let measure: Measure

    /// The meter, and the lock between the measuring thread and readers.
    private final class Measure: @unchecked Sendable {
        let lock = Mutex<Void>(())
        let meter: LoudnessMeter
        init(_ meter: LoudnessMeter) { self.meter = meter }
    }

    public init(channelCount: Int, sampleRate: Double) throws(AnalysisError) {
        let measure = Measure(try LoudnessMeter(channelCount: max(1, channelCount), sampleRate: sampleRate))
        self.measure = measure
        // 1024 frames a delivery (21 ms at 48 kHz); sixteen in the ring cover a third of a second.
        tap = Tap(channelCount: max(1, channelCount), bufferSize: 1024, queueDepth: 16, sharing: Self.thread) { buffer in
            measure.lock.withLock { _ in measure.meter.add(buffer.buffers, frameCount: buffer.frameCount) }
        }
    }

    public var observerKernel: ObserverKernel? { tap.observerKernel }

    /// Thread: audio.
    public func observe(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        tap.observe(bus, frameCount: frameCount, timeStamp: timeStamp)
    }

    /// The figures now. Thread: any but audio.
    public var reading: LoudnessReading { measure.lock.withLock { _ in LoudnessReading(measure.meter) } }

    /// Starts the measurement again from now. Thread: any but audio.
    public func reset() { measure.lock.withLock { _ in measure.meter.reset() } }

    /// Frames the tap dropped because measuring fell behind.
    public var droppedFrames: Int { tap.droppedFrames }
}
