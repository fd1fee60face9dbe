import Foundation
import TrellisCore

/// A look-ahead limiter that keeps the true peak (BS.1770's, inter-sample) of its output
/// at or below a ceiling: one gain for all channels, which reaches any needed reduction
/// before the peak arrives and recovers over `release`.
///
/// The gain follows the sliding minimum of the per-sample target (ceiling / true-peak
/// envelope) over the look-ahead, smoothed by a moving average of the same length: the
/// average of minima over windows that all hold sample n - length + 1 is no larger than
/// that sample's target, so the output never goes over. The output is `latency` frames
/// behind the input; `flush` returns the tail.
///
/// Thread: one at a time, not the audio thread (it allocates).
public final class TruePeakLimiter {
    public let channelCount: Int
    /// Linear.
    public let ceiling: Float
    /// Frames the output lags the input.
    public let latency: Int
    private let length: Int
    private let releaseCoefficient: Double
    private var detectors: [TruePeakDetector]
    private var envelope: [Float] = []
    private var scratch: [Float] = []
    /// The audio waiting `latency` frames, one ring per channel.
    private var delayed: [[Float]]
    private var delayIndex = 0
    /// The targets of the last `length` frames, as a queue of increasing values (the
    /// sliding minimum) with the frame each was seen at.
    private var minimumValues: [Float]
    private var minimumFrames: [Int]
    private var minimumHead = 0, minimumCount = 0
    private var released: Double = 1
    private var averageRing: [Double]
    private var averageIndex = 0
    private var averageSum: Double
    private var frame = 0
    /// The smallest gain applied so far.
    public private(set) var deepestGain: Float = 1

    /// Thread: control.
    public init(channelCount: Int, sampleRate: Double, ceiling decibels: Double, lookahead: Double = 0.002, release: Double = 0.1) {
        self.channelCount = channelCount
        ceiling = Float(pow(10, decibels / 20))
        length = max(2, Int((lookahead * sampleRate).rounded()))
        releaseCoefficient = 1 - exp(-1 / (release * sampleRate))
        detectors = Array(repeating: TruePeakDetector(sampleRate: sampleRate), count: channelCount)
        latency = length - 1 + detectors[0].delay
        delayed = Array(repeating: [Float](repeating: 0, count: latency + 1), count: channelCount)
        minimumValues = [Float](repeating: 1, count: length + 1)
        minimumFrames = [Int](repeating: 0, count: length + 1)
        averageRing = [Double](repeating: 1, count: length)
        averageSum = Double(length)
    }

    /// Limits `frameCount` frames of `buffers` in place (each frame leaves `latency`
    /// frames later).
    public func process(_ buffers: AudioBuffers, frameCount: Int) {
        guard frameCount > 0 else { return }
        if envelope.count < frameCount {
            envelope = [Float](repeating: 0, count: frameCount)
            scratch = [Float](repeating: 0, count: frameCount)
        }
        envelope.withUnsafeMutableBufferPointer { envelope in
            scratch.withUnsafeMutableBufferPointer { scratch in
                for i in 0..<frameCount { envelope[i] = 0 }
                for channel in 0..<channelCount {
                    detectors[channel].envelope(buffers[channel], count: frameCount, into: scratch.baseAddress!)
                    for i in 0..<frameCount where scratch[i] > envelope[i] { envelope[i] = scratch[i] }
                }
            }
        }
        let ring = latency + 1
        for i in 0..<frameCount {
            let peak = envelope[i]
            let gain = smoothedGain(target: peak > ceiling ? ceiling / peak : 1)
            deepestGain = min(deepestGain, gain)
            let read = (delayIndex + 1) % ring
            for channel in 0..<channelCount {
                let input = buffers[channel][i]
                buffers[channel][i] = delayed[channel][read] * gain
                delayed[channel][delayIndex] = input
            }
            delayIndex = read
        }
    }

    /// The last `latency` frames, written into `buffers` (capacity `latency` at least).
    public func flush(into buffers: AudioBuffers) {
        for channel in 0..<channelCount { buffers[channel].update(repeating: 0, count: latency) }
        process(buffers, frameCount: latency)
    }

    private func smoothedGain(target: Float) -> Float {
        // The sliding minimum over the last `length` targets.
        let capacity = minimumValues.count
        while minimumCount > 0, minimumValues[(minimumHead + minimumCount - 1) % capacity] >= target { minimumCount -= 1 }
        minimumValues[(minimumHead + minimumCount) % capacity] = target
        minimumFrames[(minimumHead + minimumCount) % capacity] = frame
        minimumCount += 1
        if minimumFrames[minimumHead] <= frame - length {
            minimumHead = (minimumHead + 1) % capacity
            minimumCount -= 1
        }
        let minimum = Double(minimumValues[minimumHead])
        frame += 1
        // Down at once; up over the release time.
        released = minimum < released ? minimum : released + (minimum - released) * releaseCoefficient
        averageSum += released - averageRing[averageIndex]
        averageRing[averageIndex] = released
        averageIndex = (averageIndex + 1) % length
        return Float(min(1, averageSum / Double(length)))
    }
}
