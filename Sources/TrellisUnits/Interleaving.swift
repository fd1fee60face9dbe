import TrellisCore

/// Interleaving at the edges (files, JACK, the converter's standalone API): frames of
/// one sample per channel, side by side, to and from the graph's separate channels.
/// Thread: any; no allocation.
public enum Interleaving {
    /// Writes `frameCount` frames of `source` to `destination` as interleaved frames.
    public static func interleave(_ source: AudioBuffers, frameCount: Int, into destination: UnsafeMutablePointer<Float>) {
        let channels = source.channelCount
        if channels == 1 {
            destination.update(from: source[0], count: frameCount)
            return
        }
        for channel in 0..<channels {
            let samples = source[channel]
            for frame in 0..<frameCount { destination[frame * channels + channel] = samples[frame] }
        }
    }

    /// Splits `frameCount` interleaved frames of `destination.channelCount` channels into
    /// the separate channels of `destination`.
    public static func deinterleave(_ source: UnsafePointer<Float>, frameCount: Int, into destination: AudioBuffers) {
        let channels = destination.channelCount
        if channels == 1 {
            destination[0].update(from: source, count: frameCount)
            return
        }
        for channel in 0..<channels {
            let samples = destination[channel]
            for frame in 0..<frameCount { samples[frame] = source[frame * channels + channel] }
        }
    }
}
