import CSndfile
import TrellisCore

/// Reads any file libsndfile opens, deinterleaving through a scratch buffer allocated once.
/// Integer PCM goes through libsndfile's `int` interface and `SampleScaling`, so an
/// integer `v` of `bits` bits reads as exactly `v / 2^(bits-1)`.
final class SndfileDecoder: FrameDecoder {
    private let handle: SndfileHandle
    private let channelCount: Int
    private let readsIntegers: Bool
    private let scratch: UnsafeMutableRawPointer
    private let memory = Arena()
    private let scratchFrames: Int

    init(handle: SndfileHandle, scratchFrames: Int) {
        self.handle = handle
        channelCount = Int(handle.info.channels)
        let subtype = Int(handle.info.format) & SF_FORMAT_SUBMASK
        readsIntegers = [SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8, SF_FORMAT_PCM_16, SF_FORMAT_PCM_24, SF_FORMAT_PCM_32].contains(subtype)
        self.scratchFrames = scratchFrames
        scratch = memory.takeBytes(scratchFrames * channelCount * 4)
    }

    var isOpen: Bool { handle.isOpen }

    func close() { handle.close() }

    func read(into buffers: AudioBuffers, offset: Int, frameCount: Int) throws(AudioFileError) -> Int {
        guard let file = handle.file else { throw .closed(path: handle.path) }
        let channels = channelCount
        var done = 0
        while done < frameCount {
            let asked = min(scratchFrames, frameCount - done)
            let got: Int
            if readsIntegers {
                let samples = scratch.assumingMemoryBound(to: Int32.self)
                got = Int(sf_readf_int(file, samples, sf_count_t(asked)))
                for channel in 0..<channels {
                    let destination = buffers[channel] + offset + done
                    for frame in 0..<got {
                        destination[frame] = Float(samples[frame * channels + channel]) * SampleScaling.intToFloat
                    }
                }
            } else {
                let samples = scratch.assumingMemoryBound(to: Float.self)
                got = Int(sf_readf_float(file, samples, sf_count_t(asked)))
                FrameInterleaving.deinterleave(samples, into: buffers, offset: offset + done, count: max(0, got))
            }
            done += got
            if got < asked {
                if sf_error(file) != 0 { throw .readFailed(path: handle.path, reason: handle.lastError) }
                break
            }
        }
        return done
    }

    func seek(toFrame frame: Int) throws(AudioFileError) {
        guard let file = handle.file else { throw .closed(path: handle.path) }
        guard sf_seek(file, sf_count_t(frame), SEEK_SET) == sf_count_t(frame) else {
            throw .readFailed(path: handle.path, reason: "cannot seek to frame \(frame): \(handle.lastError)")
        }
    }
}
