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
            let level = ChannelLevel.measure(buffers[channel], frameCount: frameCount)
            peak = Swift.max(peak, level.peak)
            sum += level.sumOfSquares
        }
        return BusLevel(peak: peak, meanSquare: sum / Float(frameCount * buffers.channelCount))
    }

    var peakDecibels: Float { Decibels.fromAmplitude(peak) }
    var averageDecibels: Float { Decibels.fromMeanSquare(meanSquare) }
}

/// The peak magnitude and the sum of squares of one channel: the one loop every meter in
/// Trellis runs. Thread: audio.
public enum ChannelLevel {
    @inlinable @inline(__always)
    public static func measure(_ samples: UnsafePointer<Float>, frameCount: Int) -> (peak: Float, sumOfSquares: Float) {
        // Both loops are written to vectorize: the peak compares magnitudes as integer
        // bit patterns (which order like the floats they encode), and the sum keeps
        // eight partial sums, since a single float sum cannot be reordered.
        var peakBits: UInt32 = 0
        for frame in 0..<frameCount {
            peakBits = Swift.max(peakBits, samples[frame].bitPattern & 0x7FFF_FFFF)
        }
        var sums = SIMD8<Float>(repeating: 0)
        let raw = UnsafeRawPointer(samples)
        var frame = 0
        while frame + 8 <= frameCount {
            let x = raw.loadUnaligned(fromByteOffset: frame * 4, as: SIMD8<Float>.self)
            sums += x * x
            frame += 8
        }
        var sum = sums.sum()
        while frame < frameCount {
            sum += samples[frame] * samples[frame]
            frame += 1
        }
        return (Float(bitPattern: peakBits), sum)
    }
}
