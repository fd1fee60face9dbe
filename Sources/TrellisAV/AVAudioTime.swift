import TrellisCore

/// A moment as host time, sample time, or both, as AVFAudio's `AVAudioTime`. Host time
/// here is nanoseconds of the monotonic clock (`CLOCK_MONOTONIC`), the clock JACK's
/// cycle times use; on Apple's platforms it is mach_absolute_time ticks, so code that
/// converts through `hostTime(forSeconds:)` and `seconds(forHostTime:)` ports unchanged.
public final class AVAudioTime: @unchecked Sendable, CustomStringConvertible {
    public let hostTime: UInt64
    public let isHostTimeValid: Bool
    public let sampleTime: AVAudioFramePosition
    public let isSampleTimeValid: Bool
    public let sampleRate: Double

    public init(hostTime: UInt64) {
        self.hostTime = hostTime
        isHostTimeValid = true
        sampleTime = 0
        isSampleTimeValid = false
        sampleRate = 0
    }

    public init(sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        hostTime = 0
        isHostTimeValid = false
        self.sampleTime = sampleTime
        isSampleTimeValid = true
        self.sampleRate = sampleRate
    }

    public init(hostTime: UInt64, sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        self.hostTime = hostTime
        isHostTimeValid = true
        self.sampleTime = sampleTime
        isSampleTimeValid = true
        self.sampleRate = sampleRate
    }

    /// Host ticks in `seconds`.
    public static func hostTime(forSeconds seconds: Double) -> UInt64 {
        seconds <= 0 || !seconds.isFinite ? 0 : UInt64(min(seconds * 1e9, Double(UInt64.max / 2)))
    }

    /// Seconds in `hostTime` ticks.
    public static func seconds(forHostTime hostTime: UInt64) -> Double { Double(hostTime) / 1e9 }

    /// The host time now.
    static var now: UInt64 { HostClock.now() }

    /// This time with what it lacks filled in from `anchor`, which has both: a sample time
    /// gets its host time, or a host time its sample time, at the anchor's rate. Nil when
    /// the anchor lacks either, or this time has neither.
    public func extrapolateTime(fromAnchor anchor: AVAudioTime) -> AVAudioTime? {
        guard anchor.isHostTimeValid, anchor.isSampleTimeValid, anchor.sampleRate > 0 else { return nil }
        if isSampleTimeValid && isHostTimeValid { return self }
        let rate = anchor.sampleRate
        if isSampleTimeValid {
            let frames = Double(sampleTime) * rate / (sampleRate > 0 ? sampleRate : rate) - Double(anchor.sampleTime)
            let host = Int64(bitPattern: anchor.hostTime) &+ Int64((frames / rate * 1e9).rounded())
            return AVAudioTime(hostTime: UInt64(max(0, host)), sampleTime: sampleTime, atRate: sampleRate > 0 ? sampleRate : rate)
        }
        if isHostTimeValid {
            let seconds = (Double(hostTime) - Double(anchor.hostTime)) / 1e9
            return AVAudioTime(hostTime: hostTime, sampleTime: anchor.sampleTime + AVAudioFramePosition((seconds * rate).rounded()), atRate: rate)
        }
        return nil
    }

    public var description: String {
        var parts: [String] = []
        if isHostTimeValid { parts.append("host time \(hostTime)") }
        if isSampleTimeValid { parts.append("sample time \(sampleTime) at \(sampleRate) Hz") }
        return "<AVAudioTime " + (parts.isEmpty ? "invalid" : parts.joined(separator: ", ")) + ">"
    }
}
