import TrellisCore

/// A fixed delay of whole frames, per channel: what the compiler inserts to keep paths
/// of different latency aligned. Thread: audio (process), control (make, free).
struct DelayLineState {
    let frames: Int
    let channelCount: Int
    private let memory: UnsafeMutablePointer<Float>
    private var position = 0

    init(frames: Int, channelCount: Int) {
        self.frames = frames
        self.channelCount = channelCount
        memory = .allocate(capacity: max(1, frames * channelCount))
        memory.initialize(repeating: 0, count: max(1, frames * channelCount))
    }

    func free() { memory.deallocate() }

    func clear() { memory.update(repeating: 0, count: max(1, frames * channelCount)) }

    /// Output is the input of `frames` frames ago. Source and destination differ.
    @inline(__always)
    mutating func process(from source: AudioBuffers, to destination: AudioBuffers, frameCount: Int) {
        guard frames > 0 else {
            destination.copy(from: source, frameCount: frameCount)
            return
        }
        var start = position
        for channel in 0..<channelCount {
            let ring = memory + channel * frames
            let input = source[channel], output = destination[channel]
            var index = position
            var done = 0
            while done < frameCount {
                let run = min(frameCount - done, frames - index)
                // Read the old samples out before writing the new ones in.
                (output + done).update(from: ring + index, count: run)
                (ring + index).update(from: input + done, count: run)
                done += run
                index += run
                if index == frames { index = 0 }
            }
            start = index
        }
        position = start
    }
}
