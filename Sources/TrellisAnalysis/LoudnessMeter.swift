import Foundation
import TrellisCore

/// Loudness by ITU-R BS.1770-4 and EBU R128: momentary (400 ms), short-term (3 s) and
/// integrated (gated) loudness in LUFS, loudness range in LU (EBU Tech 3342), and true
/// peak per channel in dBTP. Feed it planar float frames; read the figures at any time.
///
/// Measured in 100 ms steps as libebur128 does (gating blocks every 100 ms, short-term
/// blocks for the range every second), with its channel weights: in files of three
/// channels and more, SMPTE order (L R C LFE Ls Rs), the LFE and channels past the sixth
/// do not count and the surrounds weigh 1.41. Memory is bounded (`LoudnessHistory`).
///
/// Thread: one at a time, never the audio thread (it allocates on first use).
public final class LoudnessMeter {
    public let channelCount: Int
    public let sampleRate: Double
    private let weighting: KWeighting
    private var filters: [KWeighting.State]
    private var peaks: [TruePeakDetector]
    private let weights: [Double]
    private let framesPerStep: Int
    /// The current 100 ms step: frames so far and each channel's sum of squares.
    private var stepFrames = 0
    private var stepSums: [Double]
    /// The last 30 steps' weighted sums of squares, oldest first from `stepIndex`.
    private var steps = [Double](repeating: 0, count: 30)
    private var stepIndex = 0
    private var stepCount = 0
    private var blocks = LoudnessHistory()
    private var shortTermBlocks = LoudnessHistory()
    /// The last integrated loudness and range read, and the step they were read at:
    /// they change only when a step closes, and meters are read more often than that.
    private var integratedAsOf = -1, integratedValue = -Double.infinity
    private var rangeAsOf = -1, rangeValue = 0.0

    /// The loudness of the last 400 ms and 3 s, as of the last full 100 ms step, in LUFS.
    public private(set) var momentary = -Double.infinity
    public private(set) var shortTerm = -Double.infinity
    /// The loudest momentary and short-term loudness, read every 100 ms.
    public private(set) var maximumMomentary = -Double.infinity
    public private(set) var maximumShortTerm = -Double.infinity
    /// Frames added since the meter was made or reset.
    public private(set) var frameCount = 0

    /// 100 ms steps closed since the meter was made or reset: every figure but true peak
    /// changes only when this does.
    public var closedSteps: Int { stepCount }

    /// Seconds added since the meter was made or reset.
    public var measuredSeconds: Double { Double(frameCount) / sampleRate }

    /// Thread: control.
    public init(channelCount: Int, sampleRate: Double) throws(AnalysisError) {
        guard (1...64).contains(channelCount), sampleRate >= 1000, sampleRate <= 768_000 else {
            throw .unsupported("loudness needs 1 to 64 channels at 1 to 768 kHz, not \(channelCount) at \(sampleRate) Hz")
        }
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        weighting = KWeighting(sampleRate: sampleRate)
        filters = Array(repeating: KWeighting.State(), count: channelCount + 1)
        peaks = Array(repeating: TruePeakDetector(sampleRate: sampleRate), count: channelCount)
        weights = Self.weights(channelCount: channelCount)
        framesPerStep = (Int(sampleRate.rounded()) + 5) / 10
        stepSums = Array(repeating: 0, count: channelCount + 1)
    }

    private static func weights(channelCount: Int) -> [Double] {
        switch channelCount {
        case 1, 2, 3: Array(repeating: 1, count: channelCount)
        case 4: [1, 1, 1.41, 1.41]
        case 5: [1, 1, 1, 1.41, 1.41]
        default: [1, 1, 1, 0, 1.41, 1.41] + Array(repeating: 0, count: channelCount - 6)
        }
    }

    /// Starts again from silence, as if just made.
    public func reset() {
        for i in filters.indices { filters[i] = KWeighting.State() }
        for i in peaks.indices { peaks[i].reset() }
        for i in stepSums.indices { stepSums[i] = 0 }
        for i in steps.indices { steps[i] = 0 }
        stepFrames = 0
        stepIndex = 0
        stepCount = 0
        integratedAsOf = -1
        rangeAsOf = -1
        frameCount = 0
        blocks.reset()
        shortTermBlocks.reset()
        momentary = -.infinity
        shortTerm = -.infinity
        maximumMomentary = -.infinity
        maximumShortTerm = -.infinity
    }

    /// Adds `frameCount` frames of `channels` (one pointer per channel; missing channels
    /// are silence).
    public func add(_ channels: AudioBuffers, frameCount: Int) {
        let count = min(channelCount, channels.channelCount)
        self.frameCount += frameCount
        var done = 0
        while done < frameCount {
            let take = min(frameCount - done, framesPerStep - stepFrames)
            var channel = 0
            while channel < count {
                let left = UnsafePointer(channels[channel] + done)
                let right = channel + 1 < count ? UnsafePointer(channels[channel + 1] + done) : left
                let sums = filters.withUnsafeMutableBufferPointer {
                    weighting.sumOfSquares(left, right, count: take, states: $0.baseAddress! + channel)
                }
                stepSums[channel] += sums.0
                stepSums[channel + 1] += sums.1
                channel += 2
            }
            stepFrames += take
            done += take
            if stepFrames == framesPerStep { closeStep() }
        }
        // After the filter, whose slow recursion hides the first reads of a block that
        // another core wrote: the peak pass then finds it in this core's cache.
        for channel in 0..<count { peaks[channel].add(channels[channel], count: frameCount) }
    }

    private func closeStep() {
        var sum = 0.0
        for channel in 0..<channelCount { sum += weights[channel] * stepSums[channel] }
        for i in stepSums.indices { stepSums[i] = 0 }
        stepFrames = 0
        steps[stepIndex] = sum
        stepIndex = (stepIndex + 1) % steps.count
        stepCount += 1
        let momentaryEnergy = energy(ofLast: 4), shortTermEnergy = energy(ofLast: 30)
        momentary = LoudnessHistory.loudness(energy: momentaryEnergy)
        shortTerm = LoudnessHistory.loudness(energy: shortTermEnergy)
        maximumMomentary = max(maximumMomentary, momentary)
        maximumShortTerm = max(maximumShortTerm, shortTerm)
        if stepCount >= 4 { blocks.add(momentaryEnergy) }
        if stepCount >= 30, (stepCount - 30) % 10 == 0 { shortTermBlocks.add(shortTermEnergy) }
    }

    /// The mean square of the last `count` steps (silence before the first).
    private func energy(ofLast count: Int) -> Double {
        var sum = 0.0
        for back in 1...count { sum += steps[(stepIndex - back + steps.count) % steps.count] }
        return sum / Double(count * framesPerStep)
    }

    /// Everything so far, gated (-70 LUFS absolute, -10 LU relative), in LUFS.
    public var integrated: Double {
        if integratedAsOf != stepCount { (integratedAsOf, integratedValue) = (stepCount, blocks.gatedLoudness()) }
        return integratedValue
    }

    /// The loudness range (EBU Tech 3342) so far, in LU.
    public var range: Double {
        if rangeAsOf != stepCount { (rangeAsOf, rangeValue) = (stepCount, shortTermBlocks.range()) }
        return rangeValue
    }

    /// The largest true (inter-sample) peak of `channel` so far, in dBTP.
    public func truePeak(channel: Int) -> Double { decibels(Double(peaks[channel].peak)) }

    /// The largest true peak of any channel, in dBTP.
    public var truePeak: Double { decibels(Double(peaks.reduce(0) { max($0, $1.peak) })) }
}
