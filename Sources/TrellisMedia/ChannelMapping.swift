import TrellisCore

/// How a file's channels meet a bus of another width, the graph's rule: mono is copied
/// to every channel, several channels going to mono are averaged, otherwise channel i
/// goes to channel i and the rest are silent or left out.
enum ChannelMapping {
    /// Maps `frameCount` frames from `source` (starting at `sourceOffset`) into
    /// `destination` (starting at `destinationOffset`). Plain loops, so the render thread
    /// may use it. Thread: any.
    @inline(__always)
    static func map(
        _ source: AudioBuffers, from sourceOffset: Int = 0,
        to destination: AudioBuffers, at destinationOffset: Int = 0, frameCount: Int
    ) {
        let inputs = source.channelCount, outputs = destination.channelCount
        if inputs == 1 || inputs == outputs {
            for channel in 0..<outputs {
                copySamples(from: source[inputs == 1 ? 0 : channel] + sourceOffset, to: destination[channel] + destinationOffset, count: frameCount)
            }
        } else if outputs == 1 {
            let out = destination[0] + destinationOffset
            copySamples(from: source[0] + sourceOffset, to: out, count: frameCount)
            for channel in 1..<inputs {
                let samples = source[channel] + sourceOffset
                for frame in 0..<frameCount { out[frame] += samples[frame] }
            }
            let scale = 1 / Float(inputs)
            for frame in 0..<frameCount { out[frame] *= scale }
        } else {
            for channel in 0..<outputs {
                let out = destination[channel] + destinationOffset
                if channel < inputs {
                    copySamples(from: source[channel] + sourceOffset, to: out, count: frameCount)
                } else {
                    out.update(repeating: 0, count: frameCount)
                }
            }
        }
    }
}
