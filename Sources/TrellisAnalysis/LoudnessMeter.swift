import CEBUR128
import Foundation
import TrellisCore

/// Loudness by ITU-R BS.1770-4 and EBU R128, through libebur128: momentary (400 ms),
/// short-term (3 s), integrated (gated) loudness in LUFS, loudness range in LU, and true
/// peak per channel. Feed it planar float frames; read the figures at any time.
///
/// Owns one `ebur128_state`, freed in `deinit`. Thread: one at a time, never the audio
/// thread (libebur128 allocates).
public final class LoudnessMeter {
    public let channelCount: Int
    public let sampleRate: Double
    private var state: UnsafeMutablePointer<ebur128_state>?
    private var interleaved: [Float] = []
    /// The loudest momentary and short-term loudness read so far (`noteBlock()`).
    public private(set) var maximumMomentary = -Double.infinity
    public private(set) var maximumShortTerm = -Double.infinity

    /// Thread: control.
    public init(channelCount: Int, sampleRate: Double) throws(AnalysisError) {
        guard (1...64).contains(channelCount), sampleRate >= 1000, sampleRate <= 768_000 else {
            throw .unsupported("loudness needs 1 to 64 channels at 1 to 768 kHz, not \(channelCount) at \(sampleRate) Hz")
        }
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue)
        guard let state = ebur128_init(UInt32(channelCount), UInt(sampleRate.rounded()), mode) else {
            throw .unsupported("libebur128 could not start a meter for \(channelCount) channels at \(sampleRate) Hz")
        }
        self.state = state
        // Five channels and more in SMPTE order (L R C LFE Ls Rs ...): the LFE does not count.
        if channelCount >= 6 { ebur128_set_channel(state, 3, Int32(EBUR128_UNUSED.rawValue)) }
    }

    deinit {
        ebur128_destroy(&state)
    }

    /// Adds `frameCount` frames of `channels` (one pointer per channel).
    public func add(_ channels: AudioBuffers, frameCount: Int) {
        guard frameCount > 0 else { return }
        let count = frameCount * channelCount
        if interleaved.count < count { interleaved = [Float](repeating: 0, count: count) }
        interleaved.withUnsafeMutableBufferPointer { buffer in
            for channel in 0..<min(channelCount, channels.channelCount) {
                let source = channels[channel]
                var index = channel
                for frame in 0..<frameCount {
                    buffer[index] = source[frame]
                    index += channelCount
                }
            }
            _ = ebur128_add_frames_float(state, buffer.baseAddress, frameCount)
        }
    }

    /// Reads the momentary and short-term loudness into their maxima: call it every
    /// 100 ms of audio or more often (EBU Tech 3341 asks for at least 10 Hz).
    public func noteBlock() {
        maximumMomentary = max(maximumMomentary, momentary)
        maximumShortTerm = max(maximumShortTerm, shortTerm)
    }

    /// The last 400 ms, in LUFS (-infinity for silence).
    public var momentary: Double { read(ebur128_loudness_momentary) }

    /// The last 3 s, in LUFS.
    public var shortTerm: Double { read(ebur128_loudness_shortterm) }

    /// Everything so far, gated (-70 LUFS absolute, -10 LU relative), in LUFS.
    public var integrated: Double { read(ebur128_loudness_global) }

    /// The loudness range (EBU Tech 3342) so far, in LU.
    public var range: Double { read(ebur128_loudness_range) }

    /// The largest true (inter-sample) peak of `channel` so far, in dBTP.
    public func truePeak(channel: Int) -> Double {
        var value = 0.0
        guard ebur128_true_peak(state, UInt32(channel), &value) == 0 else { return -.infinity }
        return decibels(value)
    }

    /// The largest true peak of any channel, in dBTP.
    public var truePeak: Double { (0..<channelCount).map(truePeak(channel:)).max() ?? -.infinity }

    private func read(_ measure: (UnsafeMutablePointer<ebur128_state>?, UnsafeMutablePointer<Double>?) -> Int32) -> Double {
        var value = 0.0
        return measure(state, &value) == 0 ? value : -.infinity
    }
}
