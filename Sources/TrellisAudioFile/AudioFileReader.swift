import CSndfile
import Glibc
import TrellisCore

/// Reads a WAV, AIFF, CAF, FLAC or Ogg Vorbis file into canonical float: the
/// Extended Audio File analog for reading.
///
/// Integer samples read as `v / 2^(bits-1)` exactly (see `SampleScaling`), float samples
/// as stored, Vorbis as decoded (by libvorbisfile, for sample-exact seeking). Not for
/// concurrent use: one thread at a time, typically a disk thread after the control side
/// opened it.
public final class AudioFileReader: @unchecked Sendable {
    public let path: String
    public let info: AudioFileInfo
    /// The next frame `read` returns.
    public private(set) var framePosition = 0

    private let decoder: any FrameDecoder

    /// Frames moved through scratch buffers per libsndfile call.
    public static let chunkFrameCount = 4096

    /// Opens a file for reading. Only a regular file: a FIFO would make the open wait
    /// for a writer that may never come, and a device never ends. Thread: control.
    public init(path: String) throws(AudioFileError) {
        var status = stat()
        if stat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            let what = (status.st_mode & S_IFMT) == S_IFIFO ? "a FIFO" : (status.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "a device or socket"
            throw .cannotOpen(path: path, reason: "it is \(what); audio is read only from regular files")
        }
        let handle = try SndfileHandle(path: path, mode: Int32(SFM_READ))
        let major = handle.info.format & Int32(SF_FORMAT_TYPEMASK)
        guard let container = AudioFileContainer(sndfileMajorFormat: major) else {
            throw .unsupportedContainer(path: path, found: Self.majorFormatName(major))
        }
        let encoding = AudioFileEncoding(sndfileSubtype: handle.info.format & Int32(SF_FORMAT_SUBMASK))
        self.path = path
        if encoding == .vorbis {
            handle.close()
            let vorbis = try VorbisFileDecoder(path: path)
            decoder = vorbis
            info = AudioFileInfo(container: container, encoding: encoding, sampleRate: Double(vorbis.sampleRate),
                                 channelCount: vorbis.channelCount, frameCount: vorbis.frameCount)
        } else {
            var header = AudioFileInfo(container: container, encoding: encoding, sampleRate: Double(handle.info.samplerate),
                                       channelCount: Int(handle.info.channels), frameCount: Int(handle.info.frames))
            if container == .flac {
                // libFLAC itself, which reads on past a damaged frame, and measures a
                // file whose header claims more than it holds.
                handle.close()
                let flac = try FLACFileDecoder(path: path, channelCount: header.channelCount, frameCount: header.frameCount)
                header.frameCount = flac.frameCount
                decoder = flac
            } else {
                decoder = SndfileDecoder(handle: handle, scratchFrames: Self.chunkFrameCount)
            }
            info = header
        }
    }

    /// What was damaged in what has been read so far (FLAC frames read as silence).
    /// Thread: the one thread using this reader.
    public var damage: AudioFileDamage { (decoder as? FLACFileDecoder)?.damage ?? AudioFileDamage() }

    /// Reads up to `frameCount` frames into the first `frameCount` frames of each channel
    /// of `buffers`, which must have the file's channel count. Returns the frames read,
    /// fewer than asked only at the end of the file (0 there). Allocates nothing for
    /// WAV, AIFF, CAF and FLAC; libvorbis now and then grows its own storage. Thread: the one thread using this reader (a disk thread; never the
    /// audio thread, since it does I/O).
    public func read(into buffers: AudioBuffers, frameCount: Int) throws(AudioFileError) -> Int {
        guard decoder.isOpen else { throw .closed(path: path) }
        guard buffers.channelCount == info.channelCount else {
            throw .channelCountMismatch(path: path, fileChannels: info.channelCount, bufferChannels: buffers.channelCount)
        }
        let got = try decoder.read(into: buffers, offset: 0, frameCount: max(0, frameCount))
        framePosition += got
        return got
    }

    /// Moves to `frame` (0...frameCount), exactly, so the next `read` starts there.
    /// Allocates nothing for WAV, AIFF and CAF; the FLAC and Vorbis decoders may.
    /// Thread: the one thread using this reader.
    public func seek(toFrame frame: Int) throws(AudioFileError) {
        guard decoder.isOpen else { throw .closed(path: path) }
        guard (0...info.frameCount).contains(frame) else {
            throw .readFailed(path: path, reason: "cannot seek to frame \(frame); the file has \(info.frameCount) frames")
        }
        try decoder.seek(toFrame: frame)
        framePosition = frame
    }

    /// The whole file, one array per channel, from frame 0; leaves the position at the end.
    /// Thread: control (it allocates).
    public func readAll() throws(AudioFileError) -> [[Float]] {
        try seek(toFrame: 0)
        let chunkFrames = Self.chunkFrameCount
        let chunk = AudioBufferList(channelCount: info.channelCount, frameCapacity: chunkFrames)
        var channels = [[Float]](repeating: [], count: info.channelCount)
        // What the header says, up to 2^24 frames a channel: a header may lie.
        for channel in channels.indices { channels[channel].reserveCapacity(min(info.frameCount, 1 << 24)) }
        while true {
            let got = try read(into: chunk[0], frameCount: chunkFrames)
            for channel in channels.indices {
                channels[channel].append(contentsOf: UnsafeBufferPointer(start: chunk[0][channel], count: got))
            }
            if got < chunkFrames { break }
        }
        return channels
    }

    /// Closes the file; later calls do nothing, later reads throw `.closed`. Thread: control.
    public func close() {
        decoder.close()
    }

    private static func majorFormatName(_ major: Int32) -> String {
        var formatInfo = SF_FORMAT_INFO()
        formatInfo.format = major
        let status = sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &formatInfo, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
        guard status == 0, let name = formatInfo.name else { return "libsndfile format 0x" + String(major, radix: 16) }
        return String(cString: name) + " file"
    }
}
