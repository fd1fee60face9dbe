/// A value that moves to a new target in a straight line over a number of frames, so
/// a parameter step never clicks. Owned by one thread (the audio thread while rendering).
public struct SmoothedValue: Sendable, BitwiseCopyable {
    public private(set) var current: Float
    public private(set) var target: Float
    private var step: Float = 0
    public private(set) var remaining: Int = 0

    public init(_ value: Float) {
        current = value
        target = value
    }

    /// Heads for `target`, arriving after `frames` frames (at once when 0).
    public mutating func set(_ target: Float, frames: Int) {
        self.target = target
        if frames <= 0 {
            current = target
            remaining = 0
            step = 0
        } else {
            remaining = frames
            step = (target - current) / Float(frames)
        }
    }

    public var isRamping: Bool { remaining > 0 }

    /// The value for the next frame.
    @inline(__always)
    public mutating func next() -> Float {
        guard remaining > 0 else { return current }
        remaining -= 1
        current = remaining == 0 ? target : current + step
        return current
    }

    /// Skips `frames` frames of the ramp at once; returns the value reached.
    @inline(__always)
    public mutating func advance(by frames: Int) -> Float {
        guard remaining > 0 else { return current }
        if frames >= remaining {
            remaining = 0
            current = target
        } else {
            remaining -= frames
            current += step * Float(frames)
        }
        return current
    }
}
