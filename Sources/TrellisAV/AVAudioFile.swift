import Foundation
import TrellisAudioFile
import TrellisCore

/// An audio file read or written a buffer at a time, as AVFAudio's `AVAudioFile`:
/// `fileFormat` is what the file stores, `processingFormat` what buffers carry (32-bit
/// float deinterleaved unless asked otherwise); samples convert between them. Files are
/// WAV, AIFF, CAF, FLAC and Ogg Vorbis, the container named by the URL's extension when
/// writing. Thread: one at a time.
public final class AVAudioFile: @unchecked Sendable {
    public let url: URL
    public let fileFormat: AVAudioFormat
    public let processingFormat: AVAudioFormat

    private enum Mode {
        case reading(AudioFileReader)
        case writing(AudioFileWriter)
    }

    private let mode: Mode
    /// Float frames between a buffer of another format and the file.
    private var scratch: TrellisCore.AudioBufferList?

    /// Opens `fileURL` to read, buffers in the standard format at the file's rate and width.
    public convenience init(forReading fileURL: URL) throws {
        try self.init(forReading: fileURL, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    public init(forReading fileURL: URL, commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        let reader: AudioFileReader
        do { reader = try AudioFileReader(path: fileURL.path) } catch { throw AVAudioError(.file, error.description) }
        let info = reader.info
        let channels = AVAudioChannelCount(info.channelCount)
        guard format != .otherFormat,
              let processing = AVAudioFormat(commonFormat: format, sampleRate: info.sampleRate, channels: channels, interleaved: interleaved)
        else {
            reader.close()
            throw AVAudioError(.settings, "\(fileURL.path): no processing format \(format) for \(info.channelCount) channels at \(info.sampleRate) Hz")
        }
        url = fileURL
        mode = .reading(reader)
        fileFormat = Self.format(of: info)
        processingFormat = processing
    }

    /// Creates (or replaces) `fileURL` to write in the format `settings` name; buffers
    /// written are in the standard format at its rate and width.
    public convenience init(forWriting fileURL: URL, settings: [String: Any]) throws {
        try self.init(forWriting: fileURL, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    public init(forWriting fileURL: URL, settings: [String: Any], commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        let path = fileURL.path
        let parsed = try FormatSettings(settings)
        guard let container = AudioFileContainer(path: path) else {
            throw AVAudioError(.settings, "\(path): name the file .wav, .aif, .caf, .flac or .ogg; the extension chooses the container")
        }
        let expected: [AudioFileContainer] = switch parsed.formatID {
        case kAudioFormatFLAC: [.flac]
        case kAudioFormatVorbis: [.ogg]
        default: [.wav, .aiff, .caf]
        }
        guard expected.contains(container) else {
            throw AVAudioError(.settings, "\(path): \(AVFormatIDKey) \(formatName(parsed.formatID)) is written to \(expected.map { ".\($0.rawValue)" }.joined(separator: " or ")), not .\(container.rawValue)")
        }
        let sampleType: SampleType = switch (parsed.formatID, parsed.isFloat, parsed.bitDepth) {
        case (kAudioFormatVorbis, _, _), (kAudioFormatLinearPCM, true, _): .float32
        case (_, _, 24): .int24
        case (_, _, 32): .int32
        default: .int16
        }
        guard let processing = AVAudioFormat(commonFormat: format, sampleRate: parsed.sampleRate, channels: parsed.channels, interleaved: interleaved),
              format != .otherFormat
        else { throw AVAudioError(.settings, "\(path): no processing format \(format)") }
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(
                path: path, container: container, sampleType: sampleType, sampleRate: parsed.sampleRate, channelCount: Int(parsed.channels),
                dither: false, quality: container == .ogg ? Double(parsed.quality) / 127 : nil)
        } catch { throw AVAudioError(.file, error.description) }
        url = fileURL
        mode = .writing(writer)
        fileFormat = AVAudioFormat(sampleRate: parsed.sampleRate, channels: parsed.channels, common: parsed.commonFormat, interleaved: true,
                                   formatID: parsed.formatID, bits: parsed.bitDepth)
        processingFormat = processing
    }

    deinit { close() }

    /// Frames in the file (for a file being written, frames written so far).
    public var length: AVAudioFramePosition {
        switch mode {
        case .reading(let reader): AVAudioFramePosition(reader.info.frameCount)
        case .writing(let writer): AVAudioFramePosition(writer.framesWritten)
        }
    }

    /// Where the next read starts. A file being written is always written at its end;
    /// setting the position of one has no effect.
    public var framePosition: AVAudioFramePosition {
        get {
            switch mode {
            case .reading(let reader): AVAudioFramePosition(reader.framePosition)
            case .writing(let writer): AVAudioFramePosition(writer.framesWritten)
            }
        }
        set {
            guard case .reading(let reader) = mode else { return }
            try? reader.seek(toFrame: Int(min(max(0, newValue), length)))
        }
    }

    /// Reads up to the buffer's capacity from `framePosition`; at the end the buffer
    /// comes back with `frameLength` 0.
    public func read(into buffer: AVAudioPCMBuffer) throws {
        try read(into: buffer, frameCount: buffer.frameCapacity)
    }

    public func read(into buffer: AVAudioPCMBuffer, frameCount frames: AVAudioFrameCount) throws {
        guard case .reading(let reader) = mode else { throw AVAudioError(.state, "\(url.path): open for writing, not reading") }
        try check(buffer)
        let wanted = Int(min(frames, buffer.frameCapacity))
        do {
            if buffer.format.isStandard, let channels = buffer.floatChannelData {
                buffer.frameLength = AVAudioFrameCount(try reader.read(into: AudioBuffers(channelPointers: channels, channelCount: Int(buffer.format.channelCount)), frameCount: wanted))
                return
            }
            var done = 0
            let chunk = scratchBuffers()
            while done < wanted {
                let got = try reader.read(into: chunk[0], frameCount: min(AudioFileReader.chunkFrameCount, wanted - done))
                for channel in 0..<chunk[0].channelCount {
                    for frame in 0..<got { buffer.setSample(chunk[0][channel][frame], channel: channel, frame: done + frame) }
                }
                done += got
                if got == 0 { break }
            }
            buffer.frameLength = AVAudioFrameCount(done)
        } catch { throw AVAudioError(.file, error.description) }
    }

    /// Writes the buffer's `frameLength` frames at the end of the file.
    public func write(from buffer: AVAudioPCMBuffer) throws {
        guard case .writing(let writer) = mode else { throw AVAudioError(.state, "\(url.path): open for reading, not writing") }
        try check(buffer)
        let frames = Int(buffer.frameLength)
        do {
            if buffer.format.isStandard, let channels = buffer.floatChannelData {
                try writer.write(from: AudioBuffers(channelPointers: channels, channelCount: Int(buffer.format.channelCount)), frameCount: frames)
                return
            }
            let chunk = scratchBuffers()
            var done = 0
            while done < frames {
                let count = min(AudioFileReader.chunkFrameCount, frames - done)
                for channel in 0..<chunk[0].channelCount {
                    for frame in 0..<count { chunk[0][channel][frame] = buffer.sample(channel: channel, frame: done + frame) }
                }
                try writer.write(from: chunk[0], frameCount: count)
                done += count
            }
        } catch { throw AVAudioError(.file, error.description) }
    }

    /// Finishes the file (a file written is complete on disk); later reads and writes throw.
    public func close() {
        switch mode {
        case .reading(let reader): reader.close()
        case .writing(let writer): try? writer.close()
        }
    }

    private func check(_ buffer: AVAudioPCMBuffer) throws(AVAudioError) {
        let format = buffer.format
        guard format.channelCount == processingFormat.channelCount, format.commonFormat == processingFormat.commonFormat,
              format.isInterleaved == processingFormat.isInterleaved
        else {
            throw AVAudioError(.state, "\(url.path): the buffer is \(format), the file's processing format \(processingFormat)")
        }
    }

    private func scratchBuffers() -> TrellisCore.AudioBufferList {
        if let scratch { return scratch }
        let made = TrellisCore.AudioBufferList(channelCount: Int(processingFormat.channelCount), frameCapacity: AudioFileReader.chunkFrameCount)
        scratch = made
        return made
    }

    /// The format a file stores, as AVFAudio describes it: interleaved frames of the
    /// file's sample type, or the codec's identifier.
    static func format(of info: AudioFileInfo) -> AVAudioFormat {
        let channels = AVAudioChannelCount(info.channelCount)
        let (common, bits): (AVAudioCommonFormat, UInt32) = switch info.encoding {
        case .pcm(.float32): (.pcmFormatFloat32, 32)
        case .pcm(.int16): (.pcmFormatInt16, 16)
        case .pcm(.int32): (.pcmFormatInt32, 32)
        case .pcm(.int24): (.otherFormat, 24)
        case .vorbis, .other: (.pcmFormatFloat32, 0)
        }
        let id: AudioFormatID = switch (info.container, info.encoding) {
        case (.flac, _): kAudioFormatFLAC
        case (_, .vorbis): kAudioFormatVorbis
        default: kAudioFormatLinearPCM
        }
        return AVAudioFormat(sampleRate: info.sampleRate, channels: channels, common: id == kAudioFormatLinearPCM ? common : .otherFormat,
                             interleaved: true, formatID: id, bits: bits)
    }
}
