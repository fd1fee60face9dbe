import TrellisCore

/// The inner loops the mixers share: plain loops over raw pointers that the compiler
/// vectorizes. Thread: audio.
enum MixKernels {
    /// `destination += source · gain`.
    @inline(__always)
    static func add(_ source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, gain: Float, count: Int) {
        for frame in 0..<count { destination[frame] += source[frame] * gain }
    }

    /// `destination += source · g`, g moving linearly from `start` by `step` per frame
    /// (the first frame already takes one step, so the last frame lands on the target).
    @inline(__always)
    static func addRamped(_ source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, start: Float, step: Float, count: Int) {
        for frame in 0..<count { destination[frame] += source[frame] * (start + step * Float(frame + 1)) }
    }

    /// One mono source into a stereo pair.
    @inline(__always)
    static func addMono(_ source: UnsafePointer<Float>, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, gains: (Float, Float), count: Int) {
        let (gainLeft, gainRight) = gains
        for frame in 0..<count {
            let x = source[frame]
            left[frame] += x * gainLeft
            right[frame] += x * gainRight
        }
    }

    /// `destination = source · gain`.
    @inline(__always)
    static func scale(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>, gain: Float, count: Int) {
        for frame in 0..<count { destination[frame] = source[frame] * gain }
    }
}

extension MixKernels {
    /// Multiplies every channel of `buffers` in place by a gain that moves linearly from
    /// `start` to `end` over the slice; a constant gain of one costs nothing.
    @inline(__always)
    static func applyGain(_ buffers: AudioBuffers, from start: Float, to end: Float, count: Int) {
        if start == end {
            if end == 1 { return }
            for channel in 0..<buffers.channelCount { scale(buffers[channel], into: buffers[channel], gain: end, count: count) }
            return
        }
        let step = (end - start) / Float(max(1, count))
        for channel in 0..<buffers.channelCount {
            let samples = buffers[channel]
            for frame in 0..<count { samples[frame] *= start + step * Float(frame + 1) }
        }
    }
}

extension MixKernels {
    /// Whether all `count` samples are zero: an unconnected input (the graph feeds it
    /// shared silence) or a silent source, which a mixer can then skip. Stops at the first
    /// vector with a non-zero sample, so a live signal costs a load or two.
    @inline(__always)
    static func isSilent(_ samples: UnsafePointer<Float>, count: Int) -> Bool {
        let raw = UnsafeRawPointer(samples)
        var frame = 0
        while frame &+ 8 <= count {
            let block = raw.loadUnaligned(fromByteOffset: frame &* 4, as: SIMD8<Float>.self)
            if any(block .!= 0) { return false }
            frame &+= 8
        }
        while frame < count {
            if samples[frame] != 0 { return false }
            frame &+= 1
        }
        return true
    }
}
