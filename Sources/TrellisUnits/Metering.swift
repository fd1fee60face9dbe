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
        // One pass over the samples, written to vectorize: eight lanes of squares, their
        // sum (eight partial sums, since a single float sum cannot be reordered) and their
        // largest. The peak is the square root of the largest square, which is exactly the
        // largest magnitude: IEEE rounding makes sqrt(x·x) == |x| wherever x·x is a normal
        // float, |x| from 1.1e-19 to 1.8e19 (below, near enough: far under the meters'
        // -160 dBFS floor). A NaN sample is no peak; its square makes the sum NaN.
        var sums = SIMD8<Float>(repeating: 0)
        var largest = SIMD8<Float>(repeating: 0)
        let raw = UnsafeRawPointer(samples)
        var frame = 0
        while frame + 8 <= frameCount {
            let x = raw.loadUnaligned(fromByteOffset: frame * 4, as: SIMD8<Float>.self)
            let squares = x * x
            sums += squares
            largest = largest.replacing(with: squares, where: largest .< squares)
            frame += 8
        }
        var sum = sums.sum()
        var square = largest.max()
        while frame < frameCount {
            let x = samples[frame] * samples[frame]
            sum += x
            if x > square { square = x }
            frame += 1
        }
        return (squareRoot(square), sum)
    }
}
