import Synchronization
import TrellisAnalysis
import TrellisCore
import TrellisEngine
import TrellisMedia

/// A bus's loudness by EBU R128, live: momentary, short-term and integrated loudness,
/// range and true peak since it was installed or last reset. Install with
/// `graph.addObserver(_:path:bus:)` like a `BusMeter`.
///
/// The render thread only copies the bus into a tap's ring; the taps' shared delivery
/// thread measures every such bus's loudness (`LoudnessMeter`), 40 ms behind at most.
/// Thread: control, except where said.
final class BusLoudness: BusObserver, @unchecked Sendable {
    private let tap: Tap
    private let measure: Measure

    /// The meter, and the lock between the measuring thread and readers.
    private final class Measure: @unchecked Sendable {
        let lock = Mutex<Void>(())
        let meter: LoudnessMeter
        /// The last reading and the step it was taken at: a watch reads thirty times a
        /// second, the figures move ten times (true peak excepted, read fresh).
        var last: (step: Int, reading: LoudnessReading)?
        init(_ meter: LoudnessMeter) { self.meter = meter }
    }

    init(channelCount: Int, sampleRate: Double) throws(AnalysisError) {
        let measure = Measure(try LoudnessMeter(channelCount: max(1, channelCount), sampleRate: sampleRate))
        self.measure = measure
        // 2048 frames a delivery (43 ms at 48 kHz); eight in the ring cover a third of a second.
        tap = Tap(channelCount: max(1, channelCount), bufferSize: 2048, queueDepth: 8, sharedDelivery: true) { buffer in
            measure.lock.withLock { _ in measure.meter.add(buffer.buffers, frameCount: buffer.frameCount) }
        }
    }

    var observerKernel: ObserverKernel { tap.observerKernel }

    /// Thread: audio.
    func observe(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        tap.observe(bus, frameCount: frameCount, timeStamp: timeStamp)
    }

    /// The figures now. Thread: any but audio.
    var reading: LoudnessReading {
        measure.lock.withLock { _ in
            let step = measure.meter.closedSteps
            guard var reading = measure.last.flatMap({ $0.step == step ? $0.reading : nil }) else {
                let reading = LoudnessReading(measure.meter)
                measure.last = (step, reading)
                return reading
            }
            reading.truePeak = measure.meter.truePeak
            return reading
        }
    }

    /// Seconds of the bus measured since it was installed or reset. Thread: any but audio.
    var measuredSeconds: Double { measure.lock.withLock { _ in measure.meter.measuredSeconds } }

    /// Starts the measurement again from now. Thread: any but audio.
    func reset() {
        measure.lock.withLock { _ in
            measure.meter.reset()
            measure.last = nil
        }
    }

    /// Frames the tap dropped because measuring fell behind.
    var droppedFrames: Int { tap.droppedFrames }
}
