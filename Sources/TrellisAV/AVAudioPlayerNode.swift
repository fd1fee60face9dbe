import Foundation
import TrellisCore
import TrellisEngine

public typealias AVAudioNodeCompletionHandler = @Sendable () -> Void
public typealias AVAudioPlayerNodeCompletionHandler = @Sendable (AVAudioPlayerNodeCompletionCallbackType) -> Void

public struct AVAudioPlayerNodeBufferOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The buffer plays again and again until another buffer interrupts it or the player stops.
    public static let loops = AVAudioPlayerNodeBufferOptions(rawValue: 1)
    /// The buffer drops whatever was scheduled before it and plays at once (or at its time).
    public static let interrupts = AVAudioPlayerNodeBufferOptions(rawValue: 2)
    /// A looping buffer before this one ends at its next loop point, then this one plays.
    public static let interruptsAtLoop = AVAudioPlayerNodeBufferOptions(rawValue: 4)
}

public enum AVAudioPlayerNodeCompletionCallbackType: Int, Sendable {
    /// The player is done with the data (read, or dropped by `stop` or an interruption).
    case dataConsumed = 0
    /// The data has been rendered (here the same moment as consumed).
    case dataRendered = 1
    /// The data has been rendered and the engine's output latency has passed.
    case dataPlayedBack = 2
}

/// Plays buffers, files and segments of files on a timeline of its own, as AVFAudio's
/// `AVAudioPlayerNode`.
///
/// What is scheduled plays in order: each at its time, or right after the one before
/// (`at: nil`). Times given to the `schedule` calls are player times (frames since the
/// player started); the time given to `play(at:)` is a node time (the engine's render
/// timeline, as `lastRenderTime`). A time with only a host time is placed through the
/// engine's last render; while the player is not playing, such a time counts as nil.
/// Files are read ahead by a feeder in 16,384-frame pieces (offline renders wait for
/// it, so they are exact) and converted to the engine's rate when theirs differs.
/// Completion handlers run on a queue of TrellisAV's, never on the audio thread, and may
/// schedule more. `stop` drops what was scheduled and calls its handlers, as Apple's.
/// Every method may be called from any thread.
public final class AVAudioPlayerNode: AVAudioNode, @unchecked Sendable {
    var playerUnit: ScheduledPlayerUnit { unit as! ScheduledPlayerUnit }
    /// The unit holds it, so what the kernel may still read lives until the graph lets the unit go.
    private var schedule: PlayerSchedule { playerUnit.schedule }
    private var requestedPlaying = false

    public init() {
        super.init(unit: ScheduledPlayerUnit(channels: 2))
        playerUnit.node = self
    }

    // MARK: - Scheduling

    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionHandler: completionHandler)
    }

    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                               completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionCallbackType: callbackType, completionHandler: completionHandler)
    }

    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                               completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: when, options: options, completionCallbackType: .dataConsumed, completionHandler: Self.ignoringType(completionHandler))
    }

    /// Queues `buffer`'s `frameLength` frames (its length when scheduled). The buffer is
    /// read in place while it plays: change it only after its handler ran.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                               completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                               completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        let completion = completionHandler.map { PlayerCompletion(type: callbackType, handler: $0) }
        guard let standard = buffer.standardCopy() else {
            schedule.deliver(completion)
            return
        }
        var regionOptions = PlayerRegionOptions()
        if options.contains(.loops), standard.frameLength > 0 { regionOptions.insert(.loops) }
        if options.contains(.interrupts) { regionOptions.insert(.interrupts) }
        if options.contains(.interruptsAtLoop) { regionOptions.insert(.interruptsAtLoop) }
        schedule.add(.buffer(standard, start: playerStart(when), options: regionOptions, completion: completion), to: self)
    }

    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: file.length), at: when, completionHandler: completionHandler)
    }

    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: file.length), at: when,
                        completionCallbackType: callbackType, completionHandler: completionHandler)
    }

    public func scheduleSegment(_ file: AVAudioFile, startingFrame: AVAudioFramePosition, frameCount: AVAudioFrameCount, at when: AVAudioTime?,
                                completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: startingFrame, frameCount: frameCount, at: when, completionCallbackType: .dataConsumed,
                        completionHandler: Self.ignoringType(completionHandler))
    }

    /// Queues `frameCount` frames of `file` from `startingFrame` (both in the file's own
    /// frames, clipped to its length). The file is read from a handle of the player's
    /// own, so `file.framePosition` does not move.
    public func scheduleSegment(_ file: AVAudioFile, startingFrame: AVAudioFramePosition, frameCount: AVAudioFrameCount, at when: AVAudioTime?,
                                completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                                completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        let completion = completionHandler.map { PlayerCompletion(type: callbackType, handler: $0) }
        let first = min(max(0, startingFrame), file.length)
        let count = min(AVAudioFramePosition(frameCount), file.length - first)
        guard let feed = try? FileFeed(url: file.url, from: first, frames: count, completion: completion) else {
            schedule.deliver(completion)
            return
        }
        schedule.add(.file(feed, start: playerStart(when)), to: self)
    }

    /// Reads the first pieces of the scheduled files now, so `play` has nothing to wait for.
    public func prepare(withFrameCount frameCount: AVAudioFrameCount) {
        schedule.service(self, readAhead: Int(frameCount))
    }

    // MARK: - Transport

    public var isPlaying: Bool { schedule.withLock { requestedPlaying } }

    public func play() { play(at: nil) }

    /// Starts the player's timeline at `when` (a node time; nil: the next render).
    public func play(at when: AVAudioTime?) {
        var nodeTime: Int64 = -1
        if let when {
            if when.isSampleTimeValid { nodeTime = when.sampleTime } else if when.isHostTimeValid, let time = nodeSampleTime(forHostTime: when.hostTime) { nodeTime = time }
        }
        schedule.withLock {
            requestedPlaying = true
            schedule.send(PlayerCommand(kind: .play, nodeTime: nodeTime), to: playerUnit)
        }
        schedule.service(self, readAhead: 0)
    }

    /// Stops the timeline where it is; what is scheduled stays.
    public func pause() {
        schedule.withLock {
            requestedPlaying = false
            schedule.send(PlayerCommand(kind: .pause), to: playerUnit)
        }
    }

    /// Stops, drops everything scheduled (calling its handlers) and sets the player time back to 0.
    public func stop() {
        let handlers = schedule.withLock {
            requestedPlaying = false
            return schedule.dropAll(sending: PlayerCommand(kind: .stop), to: playerUnit)
        }
        schedule.deliver(handlers)
    }

    // MARK: - Time

    /// The node time of `playerTime`, while the player plays; else nil.
    public func nodeTime(forPlayerTime playerTime: AVAudioTime) -> AVAudioTime? {
        guard playerTime.isSampleTimeValid, let anchor = playerUnit.clock.read() else { return nil }
        return AVAudioTime(sampleTime: playerTime.sampleTime + anchor, atRate: engineRate)
    }

    /// The player time of `nodeTime` (its sample time, or its host time through the
    /// last render), while the player plays; else nil.
    public func playerTime(forNodeTime nodeTime: AVAudioTime) -> AVAudioTime? {
        guard let anchor = playerUnit.clock.read() else { return nil }
        let sample: Int64
        if nodeTime.isSampleTimeValid { sample = nodeTime.sampleTime } else if nodeTime.isHostTimeValid, let time = nodeSampleTime(forHostTime: nodeTime.hostTime) { sample = time } else { return nil }
        return AVAudioTime(sampleTime: sample - anchor, atRate: engineRate)
    }

    private static func ignoringType(_ handler: AVAudioNodeCompletionHandler?) -> AVAudioPlayerNodeCompletionHandler? {
        guard let handler else { return nil }
        return { @Sendable (_: AVAudioPlayerNodeCompletionCallbackType) in handler() }
    }

    var engineRate: Double { engine?.graph.sampleRate ?? 48_000 }

    /// Frames of output latency before rendered data is heard (`dataPlayedBack`).
    var playbackLatencyFrames: Int64 { Int64(((engine?.outputNode.presentationLatency ?? 0) * engineRate).rounded()) }

    private func nodeSampleTime(forHostTime host: UInt64) -> Int64? {
        let (node, cycleHost, _) = playerUnit.clock.lastCycle()
        guard cycleHost != 0 else { return nil }
        return node + Int64(((Double(host) - Double(cycleHost)) / 1e9 * engineRate).rounded())
    }

    private func playerStart(_ when: AVAudioTime?) -> Int64 {
        guard let when else { return PlayerRegion.follows }
        if when.isSampleTimeValid { return when.sampleTime }
        guard when.isHostTimeValid, let anchor = playerUnit.clock.read(), let node = nodeSampleTime(forHostTime: when.hostTime) else { return PlayerRegion.follows }
        return node - anchor
    }
}

extension AVAudioPlayerNode: OfflineStreaming {
    /// Before each offline slice: takes back what the kernel is done with and reads the
    /// scheduled files far enough ahead that the slice cannot run dry.
    public func waitForStreaming(frameCount: Int) { schedule.service(self, readAhead: frameCount) }
}

extension AVAudioPlayerNode {
    /// Queues `buffer` and returns when the player calls back, with the callback's type.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime? = nil, options: AVAudioPlayerNodeBufferOptions = [],
                               completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType) async -> AVAudioPlayerNodeCompletionCallbackType {
        await withCheckedContinuation { continuation in
            scheduleBuffer(buffer, at: when, options: options, completionCallbackType: callbackType) { continuation.resume(returning: $0) }
        }
    }

    /// Queues `file` and returns when the player calls back, with the callback's type.
    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?,
                             completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType) async -> AVAudioPlayerNodeCompletionCallbackType {
        await withCheckedContinuation { continuation in
            scheduleFile(file, at: when, completionCallbackType: callbackType) { continuation.resume(returning: $0) }
        }
    }

    /// Queues a segment of `file` and returns when the player calls back, with the callback's type.
    public func scheduleSegment(_ file: AVAudioFile, startingFrame: AVAudioFramePosition, frameCount: AVAudioFrameCount, at when: AVAudioTime?,
                                completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType) async -> AVAudioPlayerNodeCompletionCallbackType {
        await withCheckedContinuation { continuation in
            scheduleSegment(file, startingFrame: startingFrame, frameCount: frameCount, at: when, completionCallbackType: callbackType) {
                continuation.resume(returning: $0)
            }
        }
    }
}
