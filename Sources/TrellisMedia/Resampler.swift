import CSoxr
import TrellisCore

/// A streaming libsoxr resampler over non-interleaved float, for the player's and the
/// recorder's disk side. (TrellisUnits grows a `SampleRateConverter` of its own; this
/// small one keeps TrellisMedia free of a TrellisUnits dependency until they merge.)
///
/// Thread: one thread at a time, never audio (libsoxr allocates as it works).
final class Resampler {
    let inputRate: Double
    let outputRate: Double
    let channelCount: Int
    private let soxr: soxr_t

    /// Thread: control or disk.
    init(inputRate: Double, outputRate: Double, channelCount: Int) throws(MediaError) {
        var io = soxr_io_spec(SOXR_FLOAT32_S, SOXR_FLOAT32_S)
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        var error: soxr_error_t?
        let made = soxr_create(inputRate, outputRate, UInt32(channelCount), &error, &io, &quality, nil)
        guard let made, error == nil else {
            throw .resampler(from: inputRate, to: outputRate, reason: error.map { String(cString: $0) } ?? "soxr_create failed")
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channelCount = channelCount
        soxr = made
    }

    deinit { soxr_delete(soxr) }

    /// Resamples up to `inputFrames` frames into at most `outputCapacity` frames and
    /// returns how many it used and made; what it did not use must be offered again.
    func process(_ input: AudioBuffers, inputFrames: Int, into output: AudioBuffers, outputCapacity: Int) -> (used: Int, made: Int) {
        var used = 0, made = 0
        let error = soxr_process(soxr, UnsafeRawPointer(input.channelPointers), inputFrames, &used,
                                 UnsafeMutableRawPointer(mutating: output.channelPointers), outputCapacity, &made)
        return error == nil ? (used, made) : (0, 0)
    }

    /// Marks the end of the input and writes up to `outputCapacity` frames of the
    /// filter's tail; call until it returns 0.
    func drain(into output: AudioBuffers, outputCapacity: Int) -> Int {
        var made = 0
        let error = soxr_process(soxr, nil, 0, nil, UnsafeMutableRawPointer(mutating: output.channelPointers), outputCapacity, &made)
        return error == nil ? made : 0
    }

    /// Forgets the signal so far (after a seek).
    func clear() { _ = soxr_clear(soxr) }
}
