/// A gain that moves to a new target in a straight line over a number of frames, so a
/// change never clicks: `SmoothedValue` in this module, where the real-time checker can
/// see through it. Owned by one thread (the audio thread while rendering).
struct GainRamp: BitwiseCopyable {
    private(set) var current: Float
    private(set) var target: Float
    private var step: Float = 0
    private(set) var remaining = 0

    init(_ value: Float) {
        current = value
        target = value
    }

    /// Heads for `target`, arriving after `frames` frames (at once when 0).
    @inline(__always)
    mutating func set(_ target: Float, frames: Int) {
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

    var isRamping: Bool { remaining > 0 }

    /// The value for the next frame.
    @inline(__always)
    mutating func next() -> Float {
        guard remaining > 0 else { return current }
        remaining &-= 1
        current = remaining == 0 ? target : current + step
        return current
    }
}
