import Foundation

/// What `AnalysisPicture` draws of a file, gathered while it is read once: each pixel
/// column's smallest and largest sample per channel and whether a clipped run falls in
/// it, a spectrum of the channels mixed per column, and the short-term loudness every
/// 100 ms. Memory is the picture's size, not the file's.
///
/// Thread: one at a time.
public struct PictureData: Sendable {
    public let columns: Int
    public let channelCount: Int
    public let frameCount: Int
    public let sampleRate: Double
    /// `[channel][column]`.
    public internal(set) var minimum: [[Float]]
    public internal(set) var maximum: [[Float]]
    public internal(set) var clipped: [Bool]
    /// `[column][band]`: power in dB (full-scale sine: 0) of `bands` log-spaced bands
    /// from 20 Hz to the Nyquist frequency.
    public internal(set) var spectrogram: [[Float]]
    public let bands: Int
    /// LUFS every 100 ms.
    public internal(set) var shortTerm: [Double] = []

    static let fourierSize = 2048
    private var transform = FourierTransform(size: fourierSize)
    private let window: [Double]
    /// The mix's latest samples, the first at frame `recentStart`.
    private var recent: [Float] = []
    private var recentStart = 0
    private var nextSpectrumColumn = 0
    private var framesSeen = 0
    private var clippedRun = 0

    public init(columns: Int, bands: Int, channelCount: Int, frameCount: Int, sampleRate: Double) {
        self.columns = max(1, columns)
        self.bands = max(1, bands)
        self.channelCount = channelCount
        self.frameCount = max(1, frameCount)
        self.sampleRate = sampleRate
        minimum = Array(repeating: Array(repeating: 0, count: self.columns), count: channelCount)
        maximum = minimum
        clipped = Array(repeating: false, count: self.columns)
        spectrogram = []
        window = (0..<Self.fourierSize).map { 0.5 - 0.5 * cos(2 * .pi * Double($0) / Double(Self.fourierSize)) }
    }

    /// The column frame `frame` falls in.
    func column(of frame: Int) -> Int { min(columns - 1, frame * columns / frameCount) }

    /// Adds the next `count` frames: `channels[c][i]`, and their mix.
    mutating func add(_ channels: [UnsafePointer<Float>], mix: UnsafePointer<Float>, count: Int) {
        for frame in 0..<count {
            let column = column(of: framesSeen + frame)
            var full = false
            for channel in 0..<channelCount {
                let value = channels[channel][frame]
                if value < minimum[channel][column] { minimum[channel][column] = value }
                if value > maximum[channel][column] { maximum[channel][column] = value }
                if value.magnitude >= ChannelStatistics.fullScale { full = true }
            }
            // Runs of two or more full-scale frames, as `ChannelStatistics` counts them.
            clippedRun = full ? clippedRun + 1 : 0
            if clippedRun >= 2 { clipped[column] = true }
        }
        recent.append(contentsOf: UnsafeBufferPointer(start: mix, count: count))
        framesSeen += count
        takeSpectra(upTo: framesSeen)
        // Keep what the next column's window may still reach.
        let keep = Self.fourierSize + count
        if recent.count > keep {
            recentStart += recent.count - keep
            recent.removeFirst(recent.count - keep)
        }
    }

    /// Adds the short-term loudness at the end of a 100 ms step.
    mutating func addShortTerm(_ loudness: Double) { shortTerm.append(loudness) }

    /// Takes the spectra of the columns left after the last frame.
    mutating func finish() { takeSpectra(upTo: Int.max) }

    /// A spectrum for every column whose end has been read: the window ending there.
    private mutating func takeSpectra(upTo end: Int) {
        while nextSpectrumColumn < columns {
            let columnEnd = min(frameCount, (nextSpectrumColumn + 1) * frameCount / columns)
            guard columnEnd <= end || end == .max else { return }
            var signal = [Double](repeating: 0, count: Self.fourierSize)
            for index in 0..<Self.fourierSize {
                let frame = columnEnd - Self.fourierSize + index - recentStart
                if frame >= 0 && frame < recent.count { signal[index] = Double(recent[frame]) * window[index] }
            }
            spectrogram.append(bandPowers(transform.powerSpectrum(of: signal)))
            nextSpectrumColumn += 1
        }
    }

    /// The largest bin of each band, in dB against a full-scale sine's peak bin.
    private func bandPowers(_ power: [Double]) -> [Float] {
        let nyquist = sampleRate / 2, binWidth = sampleRate / Double(Self.fourierSize)
        // A full-scale sine through the Hann window peaks at (N/4)^2.
        let reference = pow(Double(Self.fourierSize) / 4, 2)
        return (0..<bands).map { band in
            let low = 20 * pow(nyquist / 20, Double(band) / Double(bands))
            let high = 20 * pow(nyquist / 20, Double(band + 1) / Double(bands))
            let first = min(power.count - 1, Int(low / binWidth)), last = min(power.count - 1, max(first, Int(high / binWidth)))
            let largest = power[first...last].max() ?? 0
            return Float(largest > 0 ? 10 * log10(largest / reference) : -200)
        }
    }
}
