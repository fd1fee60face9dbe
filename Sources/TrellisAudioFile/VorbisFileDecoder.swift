import CVorbisfile
import TrellisCore

/// Decodes Ogg Vorbis with libvorbisfile, whose `ov_pcm_seek` is sample-exact; libsndfile
/// 1.2's Vorbis seek can land a lapped block away from the target (libsndfile#885).
/// The one owner of its `OggVorbis_File`: `close()` or deinit clears it, once.
final class VorbisFileDecoder: FrameDecoder {
    let path: String
    let channelCount: Int
    let sampleRate: Int
    let frameCount: Int
    private var file: UnsafeMutablePointer<OggVorbis_File>?

    init(path: String) throws(AudioFileError) {
        // Owner: this decoder; `close()` clears and frees it, once.
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        let status = ov_fopen(path, file)
        guard status == 0 else {
            // ov_fopen clears what it opened on failure, but the struct is still ours to free.
            file.deallocate()
            throw .cannotOpen(path: path, reason: "libvorbisfile cannot decode it (error \(status))")
        }
        self.path = path
        self.file = file
        guard let first = ov_info(file, 0) else {
            ov_clear(file)
            file.deallocate()
            throw .cannotOpen(path: path, reason: "the Vorbis stream has no header")
        }
        channelCount = Int(first.pointee.channels)
        sampleRate = Int(first.pointee.rate)
        frameCount = Int(ov_pcm_total(file, -1))
        // A chained file whose links change format cannot be one stream of frames.
        for link in 1..<max(1, Int(ov_streams(file))) {
            let info = ov_info(file, Int32(link))
            if info?.pointee.channels != first.pointee.channels || info?.pointee.rate != first.pointee.rate {
                close()
                throw .cannotOpen(path: path, reason: "its chained Ogg streams change channel count or sample rate")
            }
        }
    }

    deinit { close() }

    var isOpen: Bool { file != nil }

    func close() {
        guard let file else { return }
        self.file = nil
        ov_clear(file)
        file.deallocate()
    }

    func read(into buffers: AudioBuffers, offset: Int, frameCount: Int) throws(AudioFileError) -> Int {
        guard let file else { throw .closed(path: path) }
        var done = 0
        var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
        while done < frameCount {
            var link: Int32 = 0
            let asked = Int32(clamping: frameCount - done)
            let got = Int(ov_read_float(file, &pcm, asked, &link))
            if got == 0 { break }
            if got == Int(OV_HOLE) { continue }
            guard got > 0, let pcm else {
                throw .readFailed(path: path, reason: "libvorbisfile error \(got)")
            }
            for channel in 0..<channelCount {
                guard let source = pcm[channel] else { continue }
                (buffers[channel] + offset + done).update(from: source, count: got)
            }
            done += got
        }
        return done
    }

    func seek(toFrame frame: Int) throws(AudioFileError) {
        guard let file else { throw .closed(path: path) }
        let status = ov_pcm_seek(file, ogg_int64_t(frame))
        guard status == 0 else {
            throw .readFailed(path: path, reason: "cannot seek to frame \(frame): libvorbisfile error \(status)")
        }
    }
}
