/// What a reader found damaged and played as silence in its place: FLAC frames that
/// failed their check or could not be found. Thread: any (a plain value).
public struct AudioFileDamage: Sendable, Equatable {
    /// Errors the decoder reported (a frame may bring more than one).
    public var errorCount = 0
    /// Frames read as silence in place of damaged audio.
    public var silencedFrames = 0
    /// The file frame where the first silenced stretch began.
    public var firstFrame: Int?
    /// What the header claimed, when the file holds far fewer frames (it is read as
    /// long as it is).
    public var claimedFrames: Int?

    public init(claimedFrames: Int? = nil) { self.claimedFrames = claimedFrames }

    public var isEmpty: Bool { errorCount == 0 && silencedFrames == 0 && claimedFrames == nil }

    mutating func note(frames: Int, at frame: Int) {
        silencedFrames += frames
        firstFrame = min(firstFrame ?? frame, frame)
    }

    /// "2 decoding errors: 4608 frames from 1.024 s on were read as silence".
    public func description(sampleRate: Double) -> String {
        let start = firstFrame.map { frame -> String in
            let milliseconds = Int((Double(frame) / sampleRate * 1000).rounded())
            let fraction = String(milliseconds % 1000)
            return " from \(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s on"
        } ?? ""
        let claim = claimedFrames.map { "its header claims \($0) frames, far more than it holds" }
        if errorCount == 0 && silencedFrames == 0, let claim { return claim }
        return "\(errorCount) decoding error\(errorCount == 1 ? "" : "s"): \(silencedFrames) frames\(start) were read as silence"
            + (claim.map { "; " + $0 } ?? "")
    }
}
