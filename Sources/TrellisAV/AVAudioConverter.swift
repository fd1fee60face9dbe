import Foundation
import TrellisCore
import TrellisUnits

public enum AVAudioConverterInputStatus: Int, Sendable {
    case haveData = 0
    case noDataNow = 1
    case endOfStream = 2
}

public enum AVAudioConverterOutputStatus: Int, Sendable {
    case haveData = 0
    case inputRanDry = 1
    case endOfStream = 2
    case error = 3
}

/// Foundation's error out-parameter, which Linux' Foundation lacks: `var error: NSError?`
/// and `&error` pass it as on Apple's platforms.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

public typealias AVAudioConverterInputBlock = (AVAudioPacketCount, UnsafeMutablePointer<AVAudioConverterInputStatus>) -> AVAudioBuffer?

/// Converts PCM between formats, as AVFAudio's `AVAudioConverter`: sample types,
/// interleaving, channel counts (mono is copied to every output channel; more channels
/// into fewer keep the first ones, or average with `downmix`), and rates through
/// libsoxr. Thread: one at a time.
public final class AVAudioConverter: @unchecked Sendable {
    public let inputFormat: AVAudioFormat
    public let outputFormat: AVAudioFormat
    /// For each output channel, the input channel it takes, or −1 for silence.
    public var channelMap: [NSNumber]
    public var downmix = false
    /// Kept for porting; integers are written rounded, without dither.
    public var dither = false
    /// `AVAudioQuality`'s raw value: min and low are libsoxr's quick and low recipes,
    /// medium its medium, high and max its high and very high.
    public var sampleRateConverterQuality = AVAudioQuality.high.rawValue {
        didSet { resampler = nil }
    }
    public var sampleRateConverterAlgorithm: String?

    private var resampler: SampleRateConverter?
    /// Input already read, mapped to the output's channels, not yet converted.
    private var pending: [[Float]]
    private var ended = false

    /// Nil unless both formats are linear PCM of a common sample type.
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        guard fromFormat.commonFormat != .otherFormat, toFormat.commonFormat != .otherFormat else { return nil }
        inputFormat = fromFormat
        outputFormat = toFormat
        let inputs = Int(fromFormat.channelCount), outputs = Int(toFormat.channelCount)
        channelMap = (0..<outputs).map { NSNumber(value: inputs == 1 ? 0 : ($0 < inputs ? $0 : -1)) }
        pending = Array(repeating: [], count: outputs)
    }

    /// Forgets what was read and the converter's state, for a new stream.
    public func reset() {
        resampler?.reset()
        pending = Array(repeating: [], count: pending.count)
        ended = false
    }

    /// Converts `inputBuffer` into `outputBuffer` in one go, for formats of one rate
    /// (rates differ: use the input-block form, as in AVFAudio).
    public func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        guard inputFormat.sampleRate == outputFormat.sampleRate else {
            throw AVAudioError(.state, "AVAudioConverter: \(inputFormat.sampleRate) Hz to \(outputFormat.sampleRate) Hz needs convert(to:error:withInputFrom:)")
        }
        try check(inputBuffer, is: inputFormat, "input")
        try check(outputBuffer, is: outputFormat, "output")
        let frames = Int(min(inputBuffer.frameLength, outputBuffer.frameCapacity))
        let mapped = map(inputBuffer, frames: frames)
        for channel in 0..<mapped.count {
            for frame in 0..<frames { outputBuffer.setSample(mapped[channel][frame], channel: channel, frame: frame) }
        }
        outputBuffer.frameLength = AVAudioFrameCount(frames)
    }

    /// Fills `outputBuffer`, asking `inputBlock` for input as it needs it.
    public func convert(to outputBuffer: AVAudioBuffer, error outError: NSErrorPointer, withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        func fail(_ message: String) -> AVAudioConverterOutputStatus {
            outError?.pointee = NSError(domain: "TrellisAV.AVAudioConverter", code: -50, userInfo: [NSLocalizedDescriptionKey: message])
            return .error
        }
        guard let output = outputBuffer as? AVAudioPCMBuffer, output.format == outputFormat else {
            return fail("the output buffer is not in the converter's output format \(outputFormat)")
        }
        let capacity = Int(output.frameCapacity)
        var produced = 0
        var ranDry = false
        while produced < capacity {
            if !pending[0].isEmpty || (ended && resampler != nil) {
                let before = pending[0].count
                let made = drain(into: output, at: produced, capacity: capacity - produced)
                produced += made
                if made > 0 || pending[0].count < before { continue }
            }
            if ended { break }
            let wanted = AVAudioPacketCount(max(1, Double(capacity - produced) * inputFormat.sampleRate / outputFormat.sampleRate))
            var status = AVAudioConverterInputStatus.haveData
            let given = inputBlock(wanted, &status)
            switch status {
            case .haveData:
                guard let buffer = given as? AVAudioPCMBuffer, buffer.format == inputFormat else {
                    return fail("the input block gave a buffer that is not in the converter's input format \(inputFormat)")
                }
                let mapped = map(buffer, frames: Int(buffer.frameLength))
                for channel in pending.indices { pending[channel] += mapped[channel] }
            case .noDataNow:
                ranDry = true
            case .endOfStream:
                ended = true
            }
            if ranDry { break }
        }
        output.frameLength = AVAudioFrameCount(produced)
        if produced == capacity { return .haveData }
        if ranDry { return .inputRanDry }
        return produced > 0 ? .haveData : .endOfStream
    }

    /// Converts pending input (through the resampler when rates differ, flushing it at
    /// the end of the stream) into `output` from frame `offset`; returns the frames made.
    private func drain(into output: AVAudioPCMBuffer, at offset: Int, capacity: Int) -> Int {
        let channels = pending.count
        guard inputFormat.sampleRate != outputFormat.sampleRate else {
            let frames = min(capacity, pending[0].count)
            for channel in 0..<channels {
                for frame in 0..<frames { output.setSample(pending[channel][frame], channel: channel, frame: offset + frame) }
                pending[channel].removeFirst(frames)
            }
            return frames
        }
        guard let resampler = makeResampler() else { return 0 }
        let scratch = TrellisCore.AudioBufferList(channelCount: channels, frameCapacity: capacity)
        let made: Int
        if pending[0].isEmpty {
            made = resampler.flush(output: scratch[0], outputCapacity: capacity)
        } else {
            let input = TrellisCore.AudioBufferList(channelCount: channels, frameCapacity: pending[0].count)
            for channel in 0..<channels { input[0][channel].update(from: pending[channel], count: pending[channel].count) }
            let (consumed, produced) = resampler.process(input: input[0], inputFrames: pending[0].count, output: scratch[0], outputCapacity: capacity)
            for channel in 0..<channels { pending[channel].removeFirst(consumed) }
            made = produced
        }
        for channel in 0..<channels {
            for frame in 0..<made { output.setSample(scratch[0][channel][frame], channel: channel, frame: offset + frame) }
        }
        return made
    }

    private func makeResampler() -> SampleRateConverter? {
        if let resampler { return resampler }
        let quality: SampleRateConverter.Quality = switch sampleRateConverterQuality {
        case ..<AVAudioQuality.low.rawValue: .quick
        case ..<AVAudioQuality.medium.rawValue: .low
        case ..<AVAudioQuality.high.rawValue: .medium
        case ..<AVAudioQuality.max.rawValue: .high
        default: .veryHigh
        }
        resampler = try? SampleRateConverter(inputRate: inputFormat.sampleRate, outputRate: outputFormat.sampleRate, channelCount: pending.count, quality: quality)
        return resampler
    }

    /// `frames` of `buffer` as floats, one array per output channel, by `channelMap` (or averaged, `downmix`).
    private func map(_ buffer: AVAudioPCMBuffer, frames: Int) -> [[Float]] {
        let inputs = Int(inputFormat.channelCount)
        let outputs = Int(outputFormat.channelCount)
        if downmix && outputs < inputs {
            return (0..<outputs).map { channel in
                let sources = outputs == 1 ? Array(0..<inputs) : (0..<inputs).filter { $0 % outputs == channel }
                return (0..<frames).map { frame in sources.reduce(0) { $0 + buffer.sample(channel: $1, frame: frame) } / Float(sources.count) }
            }
        }
        return (0..<outputs).map { channel in
            let source = channel < channelMap.count ? channelMap[channel].intValue : -1
            guard (0..<inputs).contains(source) else { return [Float](repeating: 0, count: frames) }
            return (0..<frames).map { buffer.sample(channel: source, frame: $0) }
        }
    }

    private func check(_ buffer: AVAudioPCMBuffer, is format: AVAudioFormat, _ role: String) throws(AVAudioError) {
        guard buffer.format == format else {
            throw AVAudioError(.state, "AVAudioConverter: the \(role) buffer is \(buffer.format), the converter's \(role) format \(format)")
        }
    }
}
