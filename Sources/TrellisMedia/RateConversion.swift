import TrellisCore
import TrellisUnits

/// The players' and recorders' rate converter: libsoxr at high quality, through the
/// converter TrellisUnits offers. Thread: control or disk (libsoxr allocates as it works).
func makeConverter(from inputRate: Double, to outputRate: Double, channels: Int) throws(MediaError) -> SampleRateConverter {
    do { return try SampleRateConverter(inputRate: inputRate, outputRate: outputRate, channelCount: channels, quality: .high) } catch {
        throw .resampler(from: inputRate, to: outputRate, reason: "\(error)")
    }
}
