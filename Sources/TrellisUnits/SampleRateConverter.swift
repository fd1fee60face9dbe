import CSoxr
import TrellisCore

/// Streams non-interleaved float audio from one sample rate to another through libsoxr,
/// for the file player's disk thread and the graph's edges.
///
/// Thread: one thread at a time, never the audio thread (libsoxr may allocate as it
/// works). Feed input with `process`, then call `flush` once the input has ended to
/// collect the filter's tail.
public final class SampleRateConverter {
    /// libsoxr's quality recipes.
    public enum Quality: String, CaseIterable, Sendable {
        /// Cubic interpolation.
        case quick
        /// 16-bit precision, larger roll-off.
        case low
        /// 16-bit precision, medium roll-off.
        case medium
        /// 20-bit precision.
        case high
        /// 28-bit precision.
        case veryHigh

        /// The name sessions and the command line use: `very-high` for `veryHigh`.
        public var name: String { self == .veryHigh ? "very-high" : rawValue }

        var recipe: UInt {
            switch self {
            case .quick: 0
            case .low: 1
            case .medium: 2
            case .high: 4
            case .veryHigh: 6
            }
        }
    }

    public let inputRate: Double
    public let outputRate: Double
    public let channelCount: Int
    public let quality: Quality
    private let soxr: soxr_t

    /// Thread: control.
    public init(inputRate: Double, outputRate: Double, channelCount: Int, quality: Quality = .high) throws(ConversionError) {
        guard inputRate > 0, outputRate > 0, inputRate.isFinite, outputRate.isFinite else {
            throw .invalidRates(input: inputRate, output: outputRate)
        }
        guard channelCount > 0 else { throw .invalidChannelCount(channelCount) }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channelCount = channelCount
        self.quality = quality
        var io = soxr_io_spec(SOXR_FLOAT32_S, SOXR_FLOAT32_S)
        var spec = soxr_quality_spec(quality.recipe, 0)
        var runtime = soxr_runtime_spec(1)
        var error: soxr_error_t?
        let made = soxr_create(inputRate, outputRate, UInt32(channelCount), &error, &io, &spec, &runtime)
        guard let made, error == nil else {
            throw .soxr(error.map { String(cString: $0) } ?? "soxr_create failed", inputRate: inputRate, outputRate: outputRate)
        }
        soxr = made
    }

    deinit { soxr_delete(soxr) }

    /// Converts up to `inputFrames` frames of `input` into at most `outputCapacity`
    /// frames of `output`; returns how many frames it used and made. Input it did not use
    /// must be offered again. Returns (0, 0) if libsoxr reports an error.
    public func process(input: AudioBuffers, inputFrames: Int, output: AudioBuffers, outputCapacity: Int) -> (consumed: Int, produced: Int) {
        var consumed = 0, produced = 0
        let error = soxr_process(soxr, UnsafeRawPointer(input.channelPointers), inputFrames, &consumed,
                                 UnsafeMutableRawPointer(mutating: output.channelPointers), outputCapacity, &produced)
        return error == nil ? (consumed, produced) : (0, 0)
    }

    /// Signals the end of input and writes up to `outputCapacity` frames of what remains;
    /// call until it returns 0.
    public func flush(output: AudioBuffers, outputCapacity: Int) -> Int {
        var produced = 0
        let error = soxr_process(soxr, nil, 0, nil, UnsafeMutableRawPointer(mutating: output.channelPointers), outputCapacity, &produced)
        return error == nil ? produced : 0
    }

    /// The converter's delay in output frames.
    public var delay: Double { soxr_delay(soxr) }

    /// Forgets the stream so far, ready for a new one with the same settings.
    public func reset() { _ = soxr_clear(soxr) }

    /// Converts a whole signal at once (one array per channel), for offline work and tests.
    public static func convert(_ channels: [[Float]], from inputRate: Double, to outputRate: Double, quality: Quality = .high) throws(ConversionError) -> [[Float]] {
        let converter = try SampleRateConverter(inputRate: inputRate, outputRate: outputRate, channelCount: channels.count, quality: quality)
        let frames = channels.first?.count ?? 0
        let capacity = Int((Double(frames) * outputRate / inputRate).rounded(.up)) + 4096
        let input = AudioBufferList(channelCount: channels.count, frameCapacity: max(1, frames))
        for (channel, samples) in channels.enumerated() {
            input[0][channel].update(from: samples, count: samples.count)
        }
        let output = AudioBufferList(channelCount: channels.count, frameCapacity: capacity)
        var (_, produced) = converter.process(input: input[0], inputFrames: frames, output: output[0], outputCapacity: capacity)
        while produced < capacity {
            let slice = output[0]
            var pointers = (0..<channels.count).map { slice[$0] + produced }
            let more = pointers.withUnsafeMutableBufferPointer { buffer in
                converter.flush(output: AudioBuffers(channelPointers: UnsafePointer(buffer.baseAddress), channelCount: channels.count),
                                outputCapacity: capacity - produced)
            }
            if more == 0 { break }
            produced += more
        }
        return (0..<channels.count).map { output.samples(channel: $0, frameCount: produced) }
    }
}

/// What can go wrong setting up a conversion.
public enum ConversionError: Error, Equatable, CustomStringConvertible {
    case invalidRates(input: Double, output: Double)
    case invalidChannelCount(Int)
    case soxr(String, inputRate: Double, outputRate: Double)

    public var description: String {
        switch self {
        case .invalidRates(let input, let output):
            return "cannot convert from \(input) Hz to \(output) Hz: rates must be positive and finite"
        case .invalidChannelCount(let count):
            return "cannot convert \(count) channels: need at least one"
        case .soxr(let message, let input, let output):
            return "libsoxr could not convert \(input) Hz to \(output) Hz: \(message)"
        }
    }
}
