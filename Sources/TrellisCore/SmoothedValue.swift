/// A value that moves to a new target in a straight line over a number of frames, so
/// a parameter step never clicks. Owned by one thread (the audio thread while rendering).
/// Inlinable, so kernels in other modules can use it under the real-time checks.
public struct SmoothedValue: Sendable, BitwiseCopyable {
    @usableFromInline var currentValue: Float
    @usableFromInline var targetValue: Float
    @usableFromInline var step: Float = 0
    @usableFromInline var framesLeft: Int = 0

    @inlinable
    public init(_ value: Float) {
        currentValue = value
        targetValue = value
    }

    @inlinable public var current: Float { currentValue }
    @inlinable public var target: Float { targetValue }
    @inlinable public var remaining: Int { framesLeft }

    /// Heads for `target`, arriving after `frames` frames (at once when 0).
    @inlinable
    public mutating func set(_ target: Float, frames: Int) {
        targetValue = target
        if frames <= 0 {
            currentValue = target
            framesLeft = 0
            step = 0
        } else {
            framesLeft = frames
            step = (target - currentValue) / Float(frames)
        }
    }

    @inlinable
    public var isRamping: Bool { framesLeft > 0 }

    /// The value for the next frame.
    @inlinable @inline(__always)
    public mutating func next() -> Float {
        guard framesLeft > 0 else { return currentValue }
        framesLeft -= 1
        currentValue = framesLeft == 0 ? targetValue : currentValue + step
        return currentValue
    }

    /// Skips `frames` frames of the ramp at once; returns the value reached.
    @inlinable @inline(__always)
    public mutating func advance(by frames: Int) -> Float {
        guard framesLeft > 0 else { return currentValue }
        if frames >= framesLeft {
            framesLeft = 0
            currentValue = targetValue
        } else {
            framesLeft -= frames
            currentValue += step * Float(frames)
        }
        return currentValue
    }
}
