import TrellisCore

/// Peak and mean square of one bus over one render slice: what AVAudioPlayer's
/// `peakPower` and `averagePower` report once converted to dBFS. Thread: audio.
struct BusLevel {
    var peak: Float = 0
    var meanSquare: Float = 0

    /// Measures every channel of `buffers`; the peak is the largest magnitude of any
    /// channel and the mean square is taken over all samples of all channels.
    @inline(__always)
    static func measure(_ buffers: AudioBuffers, frameCount: Int) -> BusLevel {
        guard frameCount > 0, buffers.channelCount > 0 else { return BusLevel() }
        var peak: Float = 0
        var sum: Float = 0
        for channel in 0..<buffers.channelCount {
            let samples = buffers[channel]
            var channelPeak: Float = 0
            var channelSum: Float = 0
            for frame in 0..<frameCount {
                let x = samples[frame]
                channelPeak = Swift.max(channelPeak, Swift.abs(x))
                channelSum += x * x
            }
            peak = Swift.max(peak, channelPeak)
            sum += channelSum
        }
        return BusLevel(peak: peak, meanSquare: sum / Float(frameCount * buffers.channelCount))
    }

    var peakDecibels: Float { Decibels.fromAmplitude(peak) }
    var averageDecibels: Float { Decibels.fromMeanSquare(meanSquare) }
}
