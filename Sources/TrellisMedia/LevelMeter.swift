/// Peak and average power per channel, read as AVAudioRecorder's metering is: close a
/// window with `updateMeters()`, then read its powers (see `MeterKernel`). Bus meters and
/// recorders both meter what they watch.
public protocol LevelMeter: AnyObject, Sendable {
    var meteredChannelCount: Int { get }
    /// Thread: control.
    func updateMeters()
    /// Thread: any.
    func peakPower(forChannel channel: Int) -> Float
    /// Thread: any.
    func averagePower(forChannel channel: Int) -> Float
}

extension BusMeter: LevelMeter {
    public var meteredChannelCount: Int { kernel.channelCount }
}

extension FileRecorder: LevelMeter {
    public var meteredChannelCount: Int { meter.channelCount }
}
