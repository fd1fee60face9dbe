/// What a recorder reports. Delivered on the notifier thread.
public enum RecorderNotification: Sendable, Equatable {
    /// The recording ended (its duration ran out, or `stop`) and the file is closed.
    /// `frames` frames are in the file; `error` is the first failure, if any.
    case finished(frames: Int, error: MediaError?)
    /// Writing failed (a full disk, say). The audio keeps flowing; nothing more is
    /// written to this file.
    case writeFailed(MediaError)
    /// The disk thread fell behind and `frames` frames could not be recorded.
    case overrun(sampleTime: Int64, frames: Int)
}

/// A message from the render thread, as it travels through the event ring.
struct RecorderEvent: BitwiseCopyable {
    var sampleTime: Int64
    var frames: Int
}
