import CSndfile
import Glibc
import TrellisCore

/// Writes canonical float into a WAV, AIFF, CAF, FLAC or Ogg Vorbis file in a chosen
/// sample type: the Extended Audio File analog for writing.
///
/// Float to integer: `x * 2^(bits-1)`, rounded to nearest, **clipped** to the integer's
/// range (so 1.0 writes as the largest integer), NaN written as 0. Integers that arrived
/// as `v / 2^(bits-1)` therefore write back as `v` exactly. Float32 files store samples
/// unchanged, out-of-range values included, without libsndfile's optional PEAK chunk;
/// Vorbis encodes what it is given.
/// Not for concurrent use: one thread at a time.
public final class AudioFileWriter: @unchecked Sendable {
    public let path: String
    public let container: AudioFileContainer
    public let sampleType: SampleType
    public let sampleRate: Double
    public let channelCount: Int
    public private(set) var framesWritten = 0

    private let handle: SndfileHandle
    /// Interleaved frames between the caller and libsndfile, allocated once.
    private let scratch: UnsafeMutableRawPointer
    private let memory = Arena()
    private let scratchFrames = AudioFileReader.chunkFrameCount

    /// TPDF dither (±1 LSB) added before float becomes a 16- or 24-bit integer; nil for
    /// float files, 32-bit integers (below float's precision) or when asked for none.
    private var dither: TPDFDither?

    /// Creates (or replaces) a file. `container` defaults to the one the path's extension
    /// names. A container that cannot hold `sampleType`, or a format that cannot be written,
    /// is refused before anything touches the disk; if libsndfile fails after creating a
    /// new file, the file is removed. Float written as 16 or 24 bits is dithered (TPDF)
    /// unless `dither` is false, so quiet passages become noise, not distortion.
    /// `quality` (0 smallest ... 1 best) sets an Ogg Vorbis encoder's; other containers
    /// refuse it. Thread: control.
    public init(
        path: String,
        container: AudioFileContainer? = nil,
        sampleType: SampleType,
        sampleRate: Double,
        channelCount: Int,
        dither: Bool = true,
        quality: Double? = nil
    ) throws(AudioFileError) {
        let (container, requested) = try Self.check(path: path, container: container, sampleType: sampleType, sampleRate: sampleRate, channelCount: channelCount)
        if let quality, container != .ogg || !quality.isFinite || !(0...1).contains(quality) {
            throw .invalidFormat(path: path, reason: container == .ogg
                ? "Vorbis quality \(quality) is not between 0 (smallest) and 1 (best)"
                : "a quality setting applies to Ogg Vorbis, not \(container)")
        }
        let existed = access(path, F_OK) == 0
        do {
            handle = try SndfileHandle(path: path, mode: Int32(SFM_WRITE), info: requested)
        } catch {
            if !existed { unlink(path) }
            throw error
        }
        if var quality {
            sf_command(handle.file, Int32(SFC_SET_VBR_ENCODING_QUALITY), &quality, Int32(MemoryLayout<Double>.size))
        }
        // libsndfile's PEAK chunk (float WAV and AIFF) costs a scalar pass over every
        // sample written, as much as the rest of the write path; it is optional metadata.
        if !sampleType.isInteger { sf_command(handle.file, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE)) }
        self.path = path
        self.container = container
        self.sampleType = sampleType
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.dither = dither && sampleType.isInteger && sampleType.bitsPerSample < 32 ? TPDFDither() : nil
        scratch = memory.takeBytes(scratchFrames * channelCount * 4)
    }

    /// Everything `init` checks, without truncating anything: the format can be written,
    /// and the path is a regular file (or nothing) that can be opened for writing. So
    /// several files can all be checked before any is replaced. Thread: control.
    @discardableResult
    public static func check(
        path: String, container: AudioFileContainer? = nil, sampleType: SampleType, sampleRate: Double, channelCount: Int
    ) throws(AudioFileError) -> (AudioFileContainer, SF_INFO) {
        guard let container = container ?? AudioFileContainer(path: path) else {
            let found = AudioFileContainer.pathExtension(of: path).map { "extension \"\($0)\"" } ?? "no extension"
            throw .unsupportedContainer(path: path, found: found)
        }
        guard let format = container.sndfileFormat(for: sampleType) else {
            throw .unsupportedSampleType(path: path, container: container, sampleType: sampleType)
        }
        do {
            try StreamFormat(sampleRate: sampleRate, channelCount: channelCount).validate()
        } catch {
            throw .invalidFormat(path: path, reason: error.description)
        }
        guard sampleRate == sampleRate.rounded() else {
            throw .invalidFormat(path: path, reason: "sample rate \(sampleRate) Hz is not a whole number; files store whole hertz")
        }
        var requested = SF_INFO()
        requested.samplerate = Int32(sampleRate)
        requested.channels = Int32(channelCount)
        requested.format = format
        guard sf_format_check(&requested) == SF_TRUE else {
            throw .invalidFormat(path: path, reason: "libsndfile cannot write \(container) \(sampleType) at \(Int(sampleRate)) Hz with \(channelCount) channels")
        }
        // Audio is written only to plain files this user owns, never through a link (`WriteTarget`).
        let target: WriteTarget
        do { target = try WriteTarget(path, followingLinks: false) } catch { throw .cannotOpen(path: path, reason: error.reason) }
        // O_NONBLOCK: a FIFO put there since the check must not make this wait.
        let fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        if target.exists { fchmod(fd, target.mode) }
        Glibc.close(fd)
        if !target.exists { unlink(path) }
        return (container, requested)
    }

    /// Appends `frameCount` frames from each channel of `buffers`, which must have the
    /// file's channel count. Allocates nothing in Trellis' code (encoders may).
    /// Thread: the one thread using this writer (a disk thread or control; never audio).
    public func write(from buffers: AudioBuffers, frameCount: Int) throws(AudioFileError) {
        guard let file = handle.file else { throw .closed(path: path) }
        guard buffers.channelCount == channelCount else {
            throw .channelCountMismatch(path: path, fileChannels: channelCount, bufferChannels: buffers.channelCount)
        }
        let channels = channelCount
        let bits = sampleType.bitsPerSample
        var done = 0
        while done < frameCount {
            let count = min(scratchFrames, frameCount - done)
            let written: Int
            if sampleType.isInteger {
                let samples = scratch.assumingMemoryBound(to: Int32.self)
                if var noise = dither {
                    // Frame by frame, so each channel's dither is its own.
                    for frame in 0..<count {
                        for channel in 0..<channels {
                            samples[frame * channels + channel] = SampleScaling.leftJustifiedInteger(
                                buffers[channel][done + frame], bits: bits, dither: noise.next())
                        }
                    }
                    dither = noise
                } else {
                    for channel in 0..<channels {
                        let source = buffers[channel] + done
                        for frame in 0..<count {
                            samples[frame * channels + channel] = SampleScaling.leftJustifiedInteger(source[frame], bits: bits)
                        }
                    }
                }
                written = Int(sf_writef_int(file, samples, sf_count_t(count)))
            } else {
                let samples = scratch.assumingMemoryBound(to: Float.self)
                FrameInterleaving.interleave(buffers, offset: done, count: count, into: samples)
                written = Int(sf_writef_float(file, samples, sf_count_t(count)))
            }
            framesWritten += max(0, written)
            guard written == count else {
                throw .writeFailed(path: path, reason: "wrote \(max(0, written)) of \(count) frames: \(handle.lastError)")
            }
            done += count
        }
    }

    /// Appends one array per channel; all arrays must have the same length.
    /// Thread: control (it allocates).
    public func write(channels: [[Float]]) throws(AudioFileError) {
        guard channels.count == channelCount else {
            throw .channelCountMismatch(path: path, fileChannels: channelCount, bufferChannels: channels.count)
        }
        let frameCount = channels.first?.count ?? 0
        guard channels.allSatisfy({ $0.count == frameCount }) else {
            let lengths = channels.map { String($0.count) }.joined(separator: ", ")
            throw .writeFailed(path: path, reason: "channels differ in length (\(lengths) frames)")
        }
        guard frameCount > 0 else { return }
        let list = AudioBufferList(channelCount: channelCount, frameCapacity: frameCount)
        for (channel, samples) in channels.enumerated() {
            list[0][channel].update(from: samples, count: frameCount)
        }
        try write(from: list[0], frameCount: frameCount)
    }

    /// Brings the header up to the frames written so far (WAV, AIFF and CAF sizes), so
    /// a process killed after it leaves a file that reads to this point. Encoded
    /// containers (FLAC, Ogg) need nothing. Thread: the one thread using this writer.
    public func updateHeader() {
        guard handle.isOpen, [.wav, .aiff, .caf].contains(container) else { return }
        sf_command(handle.file, Int32(SFC_UPDATE_HEADER_NOW), nil, 0)
    }

    /// Finishes the file (headers, encoder flush) and closes it. Closing again does
    /// nothing; writing after it throws `.closed`. Deinit closes an open file too, but
    /// cannot report a failure. Thread: control.
    public func close() throws(AudioFileError) {
        guard handle.isOpen else { return }
        let status = handle.close()
        guard status == 0 else {
            throw .writeFailed(path: path, reason: "closing failed: " + String(cString: sf_error_number(status)))
        }
    }
}
