import Foundation
import TrellisCore

/// `20·log10(amplitude)`; -infinity for 0.
func decibels(_ amplitude: Double) -> Double { amplitude > 0 ? 20 * log10(amplitude) : -.infinity }

/// One channel's levels, gathered a chunk at a time: sample peak, RMS, DC offset and
/// clipping. A sample is at full scale when its magnitude is at least 1 − 2⁻¹⁵ (a 16-bit
/// file's largest positive value, 32767/32768); a clipped run is two or more such
/// samples in a row (one full-scale sample is a peak, not clipping).
public struct ChannelStatistics: Sendable {
    public static let fullScale: Float = 1 - 1.0 / 32768

    public private(set) var frames = 0
    public private(set) var peak: Float = 0
    private var sum = 0.0
    private var sumOfSquares = 0.0
    /// Samples in clipped runs, and the runs.
    public private(set) var clippedSamples = 0
    public private(set) var clippedRuns = 0
    private var run = 0

    public init() {}

    public mutating func add(_ samples: UnsafePointer<Float>, count: Int) {
        for index in 0..<count {
            let sample = samples[index]
            let magnitude = abs(sample)
            if magnitude > peak { peak = magnitude }
            sum += Double(sample)
            sumOfSquares += Double(sample) * Double(sample)
            if magnitude >= Self.fullScale {
                run += 1
                if run == 2 {
                    clippedRuns += 1
                    clippedSamples += 2
                } else if run > 2 {
                    clippedSamples += 1
                }
            } else {
                run = 0
            }
        }
        frames += count
    }

    /// The largest magnitude, in dBFS.
    public var peakDecibels: Double { decibels(Double(peak)) }

    /// The root mean square, in dBFS (a full-scale sine is -3.01 dBFS).
    public var rmsDecibels: Double { frames > 0 ? decibels((sumOfSquares / Double(frames)).squareRoot()) : -.infinity }

    /// The mean, linear.
    public var dcOffset: Double { frames > 0 ? sum / Double(frames) : 0 }
}
