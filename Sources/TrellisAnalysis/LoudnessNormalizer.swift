import Foundation
import TrellisAudioFile
import TrellisCore

/// Brings a rendered file to a target integrated loudness with its true peak at or below
/// a ceiling, writing the result through a caller's writer: a gain, and where the gain
/// alone would put the true peak over the ceiling, a `TruePeakLimiter` after it. Each
/// pass is measured; a limited pass that lands off the target or over the ceiling is
/// corrected and run again (at most `maximumPasses`).
///
/// Thread: control.
public struct LoudnessNormalizer {
    /// LUFS.
    public var target: Double
    /// dBTP.
    public var ceiling: Double
    public static let maximumPasses = 6

    public init(target: Double, ceiling: Double) {
        self.target = target
        self.ceiling = ceiling
    }

    /// What was done and what came out.
    public struct Result: Sendable {
        /// dB applied before the limiter.
        public var gain: Double
        /// The limiter's deepest reduction in dB (0: it never acted; nil: not used).
        public var limiterReduction: Double?
        public var passes: Int
        /// The written output's measurement.
        public var loudness: LoudnessReading
    }

    /// Reads `source` (as measured by `measured`) and writes it normalized through the
    /// writer `makeWriter` opens, once per pass; the last pass's file stands.
    public func normalize(source path: String, measured: LoudnessReading,
                          makeWriter: () throws(AudioFileError) -> AudioFileWriter) throws(AnalysisError) -> Result {
        guard measured.integrated.isFinite else {
            throw .unsupported("nothing to normalize: the render is silent (below the -70 LUFS gate)")
        }
        var gain = target - measured.integrated
        // Loudness is linear in a gain, so a plain gain lands on the target in one pass.
        var limit: Double? = measured.truePeak + gain > ceiling ? ceiling : nil
        var passes = 0
        while true {
            passes += 1
            let writer: AudioFileWriter
            do { writer = try makeWriter() } catch { throw .file(error) }
            let (reading, reduction) = try pass(source: path, gain: gain, limit: limit, writer: writer)
            let overCeiling = reading.truePeak > ceiling
            let offTarget = abs(reading.integrated - target) > 0.05
            if passes == Self.maximumPasses || (!overCeiling && !offTarget) || limit == nil && !overCeiling {
                return Result(gain: gain, limiterReduction: reduction, passes: passes, loudness: reading)
            }
            if overCeiling { limit = (limit ?? ceiling) - (reading.truePeak - ceiling) - 0.02 }
            if offTarget { gain += target - reading.integrated }
        }
    }

    private func pass(source path: String, gain: Double, limit: Double?, writer: AudioFileWriter) throws(AnalysisError) -> (LoudnessReading, Double?) {
        let reader: AudioFileReader
        do { reader = try AudioFileReader(path: path) } catch { throw .file(error) }
        defer { reader.close() }
        let info = reader.info, channels = info.channelCount
        let meter = try LoudnessMeter(channelCount: channels, sampleRate: info.sampleRate)
        let limiter = limit.map { TruePeakLimiter(channelCount: channels, sampleRate: info.sampleRate, ceiling: $0) }
        let chunkFrames = 8192
        let chunk = AudioBufferList(channelCount: channels, frameCapacity: max(chunkFrames, (limiter?.latency ?? 0) + 1))
        let buffers = chunk[0]
        let linear = Float(pow(10, gain / 20))
        var skip = limiter?.latency ?? 0
        let tableMemory = Arena(firstBlock: 1024)
        defer { withExtendedLifetime(tableMemory) {} }
        let table: UnsafeMutablePointer<UnsafeMutablePointer<Float>> = tableMemory.take(channels)
        func emit(_ count: Int, from offset: Int) throws(AnalysisError) {
            guard count > 0 else { return }
            for channel in 0..<channels { table[channel] = buffers[channel] + offset }
            let shifted = AudioBuffers(channelPointers: UnsafePointer(table), channelCount: channels)
            meter.add(shifted, frameCount: count)
            do { try writer.write(from: shifted, frameCount: count) } catch { throw .file(error) }
        }
        while true {
            let got: Int
            do { got = try reader.read(into: buffers, frameCount: chunkFrames) } catch { throw .file(error) }
            guard got > 0 else { break }
            for channel in 0..<channels {
                let samples = buffers[channel]
                for i in 0..<got { samples[i] *= linear }
            }
            limiter?.process(buffers, frameCount: got)
            let dropped = min(skip, got)
            skip -= dropped
            try emit(got - dropped, from: dropped)
            if got < chunkFrames { break }
        }
        if let limiter {
            limiter.flush(into: buffers)
            try emit(limiter.latency - skip, from: skip)
        }
        do { try writer.close() } catch { throw .file(error) }
        return (LoudnessReading(meter), limiter.map { -20 * log10(Double($0.deepestGain)) })
    }
}

/// A meter's figures at one moment, as summaries and JSON report them.
public struct LoudnessReading: Sendable, Equatable {
    /// LUFS (-infinity: every block gated out).
    public var integrated: Double
    /// LU.
    public var range: Double
    /// dBTP, the largest of the channels'.
    public var truePeak: Double
    /// The loudest 400 ms and 3 s, in LUFS.
    public var maximumMomentary: Double
    public var maximumShortTerm: Double
    /// The last 400 ms and 3 s, in LUFS.
    public var momentary: Double
    public var shortTerm: Double

    public init(_ meter: LoudnessMeter) {
        momentary = meter.momentary
        shortTerm = meter.shortTerm
        integrated = meter.integrated
        range = meter.range
        truePeak = meter.truePeak
        maximumMomentary = meter.maximumMomentary
        maximumShortTerm = meter.maximumShortTerm
    }

    /// `-14.0 LUFS integrated, 5.2 LU range, -1.3 dBTP true peak`.
    public var text: String {
        "\(Self.figure(integrated)) LUFS integrated, \(String(format: "%.1f", range)) LU range, \(Self.figure(truePeak)) dBTP true peak"
    }

    public static func figure(_ value: Double) -> String { value.isFinite ? String(format: "%.1f", value) : "-inf" }
}
