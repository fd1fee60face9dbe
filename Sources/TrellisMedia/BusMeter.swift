import TrellisCore
import TrellisEngine

/// Meters any bus: install with `graph.addObserver(meter, node:, bus:)`, then call
/// `updateMeters()` and read `peakPower(forChannel:)` / `averagePower(forChannel:)`
/// as with AVAudioRecorder (see `MeterKernel` for the window and the formulas).
public final class BusMeter: BusObserver, @unchecked Sendable {
    public let kernel: MeterKernel

    /// Meters up to `channelCount` channels of the bus it watches. Thread: control.
    public init(channelCount: Int) {
        kernel = MeterKernel(channelCount: channelCount)
    }

    /// The program runs the meter's banks directly. Thread: control.
    public var observerKernel: ObserverKernel { kernel.observerKernel }

    /// Meters a slice outside a program. Thread: audio.
    public func observe(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        kernel.accumulate(bus, frameCount: frameCount)
    }

    /// Closes the window since the previous call and publishes its powers. Thread: control.
    public func updateMeters() { kernel.update() }

    /// Thread: any.
    public func peakPower(forChannel channel: Int) -> Float { kernel.peakPower(forChannel: channel) }

    /// Thread: any.
    public func averagePower(forChannel channel: Int) -> Float { kernel.averagePower(forChannel: channel) }
}
