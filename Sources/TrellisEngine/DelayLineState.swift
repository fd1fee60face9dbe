import TrellisCore

/// The memory of a compensating delay: its ring and read position. Owned by every program
/// that uses it, so that a recompile that keeps the delay keeps what is in flight in it
/// (a live edit elsewhere in the graph must not drop the delayed path's audio); freed
/// with the last of them, on the control side.
final class DelayLineStorage: @unchecked Sendable {
    let key: String
    let frames: Int
    let channelCount: Int
    let memory: UnsafeMutablePointer<Float>
    let position: UnsafeMutablePointer<Int>
    private let arena = Arena()

    init(key: String, frames: Int, channelCount: Int) {
        self.key = key
        self.frames = frames
        self.channelCount = channelCount
        memory = arena.take(frames * channelCount, repeating: 0)
        position = arena.take(1, repeating: 0)
    }

    func fits(_ line: ProgramPlan.DelayLine) -> Bool {
        key == line.key && frames == line.frames && channelCount == line.channelCount
    }
}

/// A fixed delay of whole frames, per channel: what the compiler inserts to keep paths
/// of different latency aligned. Plain pointers into a `DelayLineStorage`, so the audio
/// thread touches no reference count. Thread: audio (process), control (make).
struct DelayLineState {
    let frames: Int
    let channelCount: Int
    private let memory: UnsafeMutablePointer<Float>
    private let position: UnsafeMutablePointer<Int>

    init(_ storage: DelayLineStorage) {
        frames = storage.frames
        channelCount = storage.channelCount
        memory = storage.memory
        position = storage.position
    }

    func clear() {
        memory.update(repeating: 0, count: max(1, frames * channelCount))
        position.pointee = 0
    }

    /// Output is the input of `frames` frames ago. Source and destination differ.
    @inline(__always)
    func process(from source: AudioBuffers, to destination: AudioBuffers, frameCount: Int) {
        guard frames > 0 else {
            destination.copy(from: source, frameCount: frameCount)
            return
        }
        var start = position.pointee
        for channel in 0..<channelCount {
            let ring = memory + channel * frames
            let input = source[channel], output = destination[channel]
            var index = position.pointee
            var done = 0
            while done < frameCount {
                let run = min(frameCount - done, frames - index)
                // Read the old samples out before writing the new ones in.
                copySamples(from: ring + index, to: output + done, count: run)
                copySamples(from: input + done, to: ring + index, count: run)
                done += run
                index += run
                if index == frames { index = 0 }
            }
            start = index
        }
        position.pointee = start
    }
}
