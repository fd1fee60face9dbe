import TrellisAudioFile

/// Where a player stands, as a time update reports it. A value; any thread.
public struct PlayerTime: Sendable, Equatable {
    /// The graph's sample time at the end of the cycle the update comes from.
    public var sampleTime: Int64
    /// The file frame playing at that moment.
    public var frame: Int
    /// The same position in seconds of the file.
    public var seconds: Double
}

/// What a player reports besides time updates. Delivered on the notifier thread.
public enum PlayerNotification: Sendable, Equatable {
    /// The file (with its loops) has finished; `sampleTime` is the graph time of the
    /// first frame after its last. The player is stopped and back at the start.
    case endOfFile(sampleTime: Int64)
    /// The disk fell behind and `frames` frames of silence were played at `sampleTime`.
    case underrun(sampleTime: Int64, frames: Int)
    /// Reading the file failed; the player ends as if the file ended there.
    case readFailed(MediaError)
    /// Damaged frames of the file (FLAC) were played as silence of their length; the
    /// totals since the file was opened, reported each time they grow.
    case damaged(path: String, damage: AudioFileDamage, sampleRate: Double)
}


/// A message from the render thread, as it travels through the event ring.
struct PlayerEvent: BitwiseCopyable {
    enum Kind: UInt8, BitwiseCopyable { case time, endOfFile, underrun }
    var kind: Kind
    var sampleTime: Int64
    /// Output-rate position in the file (time), frames missing (underrun).
    var value: Int64
    /// Frames played since the start of the play-through (time).
    var played: Int64
    var generation: UInt64
}

/// A transport change on its way to the render thread.
struct PlayerCommand: BitwiseCopyable {
    enum Kind: UInt8, BitwiseCopyable { case play, pause, stop }
    var kind: Kind
    /// When to start (play); `Int64.min` for the next cycle.
    var sampleTime: Int64
}
