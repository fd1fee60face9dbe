import CFLAC
import TrellisCore

/// Decodes FLAC with libFLAC's stream decoder, which finds the next frame after a damaged
/// one; libsndfile stops at the first. A frame that fails its CRC comes out silent
/// (libFLAC zeroes it), and a frame that is lost is replaced by as many silent frames,
/// so the file keeps its length and every later sample its time. Each is counted in
/// `damage`. The one owner of its `FLAC__StreamDecoder`: `close()` or deinit deletes it,
/// once. Thread: the one thread using its reader.
final class FLACFileDecoder: FrameDecoder {
    let path: String
    let channelCount: Int
    /// The header's count, or what the file holds when the header claims far more.
    private(set) var frameCount: Int
    private(set) var damage = AudioFileDamage()
    private var decoder: UnsafeMutablePointer<FLAC__StreamDecoder>?
    /// The frame libFLAC last handed over, as float, per channel; `pendingStart` of it
    /// not read yet, and `pendingSilence` frames of a lost stretch to come before it.
    private let pending: UnsafeMutablePointer<Float>
    private let memory = Arena()
    private let pendingCapacity: Int
    private var pendingStart = 0
    private var pendingCount = 0
    private var pendingSilence = 0
    /// The file frame the next decoded frame should start at.
    private var expected = 0
    private var failure: FLAC__StreamDecoderErrorStatus?
    /// While the file is read through to find its length: the end of the last frame
    /// decoded, nothing stored.
    private var measuredEnd: Int?

    /// `channelCount` and `frameCount` as the file's header says (libsndfile read them).
    init(path: String, channelCount: Int, frameCount: Int) throws(AudioFileError) {
        self.path = path
        self.channelCount = channelCount
        self.frameCount = frameCount
        // FLAC's largest block is 65,535 frames.
        pendingCapacity = 65_536
        pending = memory.take(pendingCapacity * channelCount)
        guard let decoder = FLAC__stream_decoder_new() else {
            throw .cannotOpen(path: path, reason: "libFLAC could not make a decoder (out of memory)")
        }
        self.decoder = decoder
        let status = FLAC__stream_decoder_init_file(
            decoder, path, flacWrite, nil, flacError, Unmanaged.passUnretained(self).toOpaque())
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            close()
            throw .cannotOpen(path: path, reason: "libFLAC cannot decode it (init status \(status.rawValue))")
        }
        guard FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0 else {
            close()
            throw .cannotOpen(path: path, reason: "libFLAC cannot read its metadata")
        }
        do { try checkLength(decoder) } catch {
            close()
            throw error
        }
    }

    /// A header may claim more frames than the file holds (a 40-byte file can claim
    /// days). When its last frame cannot be found, the file is read through once; past
    /// what damage may lose at the end (`maximumPadding`), the file holds what was
    /// decoded, and `damage` says what the header claimed.
    private func checkLength(_ decoder: UnsafeMutablePointer<FLAC__StreamDecoder>) throws(AudioFileError) {
        guard frameCount > 0 else { return }
        // Reading counts damage; these passes only measure.
        measuredEnd = 0
        defer {
            measuredEnd = nil
            damage = AudioFileDamage(claimedFrames: damage.claimedFrames)
        }
        let found = FLAC__stream_decoder_seek_absolute(decoder, FLAC__uint64(frameCount - 1)) != 0
        try rewind(decoder, reason: stateText(decoder))
        if found { return }
        measuredEnd = 0
        _ = FLAC__stream_decoder_process_until_end_of_stream(decoder)
        let end = measuredEnd ?? 0
        try rewind(decoder, reason: stateText(decoder))
        guard end < frameCount - Self.maximumPadding else { return }
        damage.claimedFrames = frameCount
        frameCount = end
    }

    deinit { close() }

    var isOpen: Bool { decoder != nil }

    func close() {
        guard let decoder else { return }
        self.decoder = nil
        FLAC__stream_decoder_delete(decoder)
    }

    func read(into buffers: AudioBuffers, offset: Int, frameCount: Int) throws(AudioFileError) -> Int {
        guard let decoder else { throw .closed(path: path) }
        var done = 0
        while done < frameCount {
            if pendingSilence > 0 {
                let count = min(pendingSilence, frameCount - done)
                for channel in 0..<channelCount { (buffers[channel] + offset + done).update(repeating: 0, count: count) }
                pendingSilence -= count
                done += count
                continue
            }
            if pendingCount > 0 {
                let count = min(pendingCount, frameCount - done)
                for channel in 0..<channelCount {
                    (buffers[channel] + offset + done).update(from: pending + channel * pendingCapacity + pendingStart, count: count)
                }
                pendingStart += count
                pendingCount -= count
                done += count
                continue
            }
            if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_END_OF_STREAM {
                guard padEnd() else { break }
                continue
            }
            guard FLAC__stream_decoder_process_single(decoder) != 0 else {
                throw .readFailed(path: path, reason: "libFLAC stopped: \(stateText(decoder))")
            }
        }
        return done
    }

    func seek(toFrame frame: Int) throws(AudioFileError) {
        guard let decoder else { throw .closed(path: path) }
        pendingCount = 0
        pendingSilence = 0
        expected = frame
        if frame == frameCount {
            // libFLAC cannot seek to the end itself; reading on from there gives nothing.
            _ = FLAC__stream_decoder_flush(decoder)
            while FLAC__stream_decoder_get_state(decoder) != FLAC__STREAM_DECODER_END_OF_STREAM,
                  FLAC__stream_decoder_skip_single_frame(decoder) != 0 {}
            return
        }
        guard FLAC__stream_decoder_seek_absolute(decoder, FLAC__uint64(frame)) != 0 else {
            // libFLAC's seek finds its target by frame headers, which damage can hide:
            // decode from the start instead, as reading straight through would.
            try rewind(decoder, reason: stateText(decoder))
            try skip(frame)
            return
        }
    }

    private func rewind(_ decoder: UnsafeMutablePointer<FLAC__StreamDecoder>, reason: String) throws(AudioFileError) {
        guard FLAC__stream_decoder_reset(decoder) != 0,
              FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0 else {
            throw .readFailed(path: path, reason: "cannot seek (libFLAC \(reason)) nor read again from the start")
        }
        pendingCount = 0
        pendingSilence = 0
        expected = 0
        failure = nil
    }

    /// Decodes and drops `count` frames, noting damage as reading them would.
    private func skip(_ count: Int) throws(AudioFileError) {
        guard let decoder else { throw .closed(path: path) }
        var left = count
        while left > 0 {
            if pendingSilence > 0 {
                let dropped = min(pendingSilence, left)
                pendingSilence -= dropped
                left -= dropped
            } else if pendingCount > 0 {
                let dropped = min(pendingCount, left)
                pendingStart += dropped
                pendingCount -= dropped
                left -= dropped
            } else if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_END_OF_STREAM {
                guard padEnd() else { return }
            } else if FLAC__stream_decoder_process_single(decoder) == 0 {
                throw .readFailed(path: path, reason: "libFLAC stopped: \(stateText(decoder))")
            }
        }
    }

    /// The most silence put in for lost frames at one place: a few of FLAC's largest
    /// blocks. A header that claims far more than the file holds is a lie, not damage,
    /// and is not filled out.
    static let maximumPadding = 8 * 65_536

    /// At the end of the stream: frames lost at the very end become silence, so the file
    /// keeps its length. False when there is nothing (more) to put in.
    private func padEnd() -> Bool {
        let missing = frameCount - expected
        guard missing > 0, missing <= Self.maximumPadding else { return false }
        noteLoss(missing, at: expected)
        pendingSilence = missing
        expected = frameCount
        return true
    }

    /// libFLAC's write callback: a decoded frame (trimmed to the target after a seek).
    /// After an error, libFLAC writes zeros for the damaged or lost frames (before the next
    /// good frame, in the same call); those are counted, not stored.
    fileprivate func take(_ frame: FLAC__Frame, _ buffer: UnsafePointer<UnsafePointer<FLAC__int32>?>) {
        var start = Int(frame.header.number.sample_number)
        var count = Int(frame.header.blocksize)
        if let end = measuredEnd {
            measuredEnd = max(end, start + count)
            return
        }
        var skip = 0
        if start < expected {
            // Overlaps what came before (a resynchronization inside it): only the rest.
            skip = min(count, expected - start)
            start += skip
            count -= skip
        }
        count = max(0, min(count, frameCount - start, pendingCapacity))
        if start > expected {
            // A stretch libFLAC did not fill (it fills up to 50 blocks or 5 s).
            let missing = min(min(start, frameCount) - expected, Self.maximumPadding)
            noteLoss(missing, at: expected)
            pendingSilence += missing
        }
        expected = max(expected, start + count)
        if failure != nil && isSilent(buffer, from: skip, count: count) {
            noteLoss(count, at: start)
            pendingSilence += count
            return
        }
        failure = nil
        let scale = Float(sign: .plus, exponent: -(Int(frame.header.bits_per_sample) - 1), significand: 1)
        for channel in 0..<channelCount {
            guard let source = buffer[channel] else { continue }
            let destination = pending + channel * pendingCapacity
            for index in 0..<count { destination[index] = Float(source[skip + index]) * scale }
        }
        pendingStart = 0
        pendingCount = count
    }

    /// Whether a frame is all zeros: what libFLAC writes in place of a lost frame, and of
    /// one that failed its CRC (zeroed).
    private func isSilent(_ buffer: UnsafePointer<UnsafePointer<FLAC__int32>?>, from skip: Int, count: Int) -> Bool {
        (0..<channelCount).allSatisfy { channel in
            guard let source = buffer[channel] else { return true }
            return (skip..<skip + count).allSatisfy { source[$0] == 0 }
        }
    }

    /// libFLAC's error callback: it goes on to the next frame it can find.
    fileprivate func note(_ status: FLAC__StreamDecoderErrorStatus) {
        failure = status
        damage.errorCount += 1
    }

    private func noteLoss(_ frames: Int, at frame: Int) {
        damage.note(frames: frames, at: frame)
    }

    private func stateText(_ decoder: UnsafeMutablePointer<FLAC__StreamDecoder>) -> String {
        String(cString: FLAC__stream_decoder_get_resolved_state_string(decoder))
    }
}

private func flacWrite(
    _ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ frame: UnsafePointer<FLAC__Frame>?,
    _ buffer: UnsafePointer<UnsafePointer<FLAC__int32>?>?, _ client: UnsafeMutableRawPointer?
) -> FLAC__StreamDecoderWriteStatus {
    guard let frame, let buffer, let client else { return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT }
    Unmanaged<FLACFileDecoder>.fromOpaque(client).takeUnretainedValue().take(frame.pointee, buffer)
    return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
}

private func flacError(_ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ status: FLAC__StreamDecoderErrorStatus, _ client: UnsafeMutableRawPointer?) {
    guard let client else { return }
    Unmanaged<FLACFileDecoder>.fromOpaque(client).takeUnretainedValue().note(status)
}
