import Synchronization
import TrellisCore

/// One stretch of samples the player node plays: a buffer, or a piece of a file a feeder
/// read. The memory belongs to the control side, which keeps it until the kernel says
/// it is done with the region.
struct PlayerRegion: BitwiseCopyable, @unchecked Sendable {
    /// Follows whatever plays before it.
    static let follows = Int64.min

    var id: UInt64
    var channels: UnsafePointer<UnsafeMutablePointer<Float>>
    var channelCount: Int
    var frameCount: Int
    /// Player time of its first frame, or `follows`.
    var start: Int64
    var options: PlayerRegionOptions
}

struct PlayerRegionOptions: OptionSet, BitwiseCopyable, Sendable {
    let rawValue: UInt8
    static let loops = PlayerRegionOptions(rawValue: 1)
    static let interrupts = PlayerRegionOptions(rawValue: 2)
    static let interruptsAtLoop = PlayerRegionOptions(rawValue: 4)
    /// Set on a looping region once something asked it to end at its loop point.
    static let endsAtLoop = PlayerRegionOptions(rawValue: 8)
}

/// What the control side tells the kernel, in order, at the start of a cycle.
struct PlayerCommand: BitwiseCopyable, @unchecked Sendable {
    enum Kind: UInt8 { case region, play, pause, stop }
    var kind: Kind
    var region: PlayerRegion?
    /// For `play`: the node time to start at, or -1 for the cycle's first frame.
    var nodeTime: Int64 = -1
}

/// What the kernel tells the control side: a region it is done with.
struct PlayerRegionDone: BitwiseCopyable, Sendable {
    var id: UInt64
    /// The node time just after its last frame played (or when it was dropped).
    var nodeTime: Int64
    /// Dropped by `stop` or an interrupting region, rather than played to its end.
    var dropped: Bool
}

/// The kernel's queue and clock: plain memory the unit owns for its whole life, so what
/// was scheduled survives the engine being stopped or re-initialized.
struct PlayerQueue {
    static let capacity = 128
    var regions: UnsafeMutablePointer<PlayerRegion>
    var head = 0
    var count = 0
    var playing = false
    /// The node time `play(at:)` asked for, or -1.
    var startAt: Int64 = -1
    /// Frames the player has played since it was started (stopped: 0).
    var playerTime: Int64 = 0
}

/// What the control side reads of the player's clock, written by the kernel every
/// cycle: a sequence count (odd while the kernel writes), whether it plays, the node
/// time of player time 0, and the last cycle's node time, end and host time.
struct PlayerClock {
    static let fields = 6
    let values: UnsafeMutablePointer<Atomic<Int64>>

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func publish(playing: Bool, anchor: Int64, cycle: TrellisCore.AudioTimeStamp, frames: Int) {
        let sequence = values[0].load(ordering: .relaxed)
        values[0].store(sequence &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        values[1].store(playing ? 1 : 0, ordering: .relaxed)
        values[2].store(anchor, ordering: .relaxed)
        values[3].store(cycle.sampleTime, ordering: .relaxed)
        values[4].store(cycle.sampleTime &+ Int64(frames), ordering: .relaxed)
        values[5].store(Int64(bitPattern: cycle.hostTime), ordering: .relaxed)
        values[0].store(sequence &+ 2, ordering: .releasing)
    }

    /// The node time of player time 0 while playing, else nil. Thread: any.
    func read() -> Int64? {
        let fields = snapshot()
        return fields.playing ? fields.anchor : nil
    }

    /// The last cycle's start (node time and host time) and end. Thread: any.
    func lastCycle() -> (start: Int64, host: UInt64, end: Int64) {
        let fields = snapshot()
        return (fields.start, fields.host, fields.end)
    }

    private func snapshot() -> (playing: Bool, anchor: Int64, start: Int64, end: Int64, host: UInt64) {
        while true {
            let before = values[0].load(ordering: .acquiring)
            let fields = (values[1].load(ordering: .relaxed) == 1, values[2].load(ordering: .relaxed), values[3].load(ordering: .relaxed),
                          values[4].load(ordering: .relaxed), UInt64(bitPattern: values[5].load(ordering: .relaxed)))
            atomicMemoryFence(ordering: .acquiring)
            if before & 1 == 0, values[0].load(ordering: .relaxed) == before { return fields }
        }
    }
}

/// Plays the queued regions on the player's timeline: each from its start time (or
/// right after the one before), loops until something interrupts it, silence between.
/// When a time effect it feeds asked for another rate, it reads the timeline that much
/// faster or slower, through the interpolating FIFO (varispeed) or the stretcher (time-pitch).
struct ScheduledPlayerKernel {
    let queue: UnsafeMutablePointer<PlayerQueue>
    let commands: SPSCRingEnd<PlayerCommand>
    let done: SPSCRingEnd<PlayerRegionDone>
    let clock: PlayerClock
    let rate: UnsafeMutablePointer<PlayerRateSettings>

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        let kernel = state.assumingMemoryBound(to: Self.self).pointee
        let cycle = context.assumingMemoryBound(to: RenderContext.self).pointee
        let frames = cycle.frameCount, now = cycle.timeStamp.sampleTime
        let output = cycle.outputs[0]
        output.clear(frameCount: frames)
        while let command = kernel.commands.pop() { kernel.take(command, now: now) }
        let queue = kernel.queue
        var frame = 0
        if !queue.pointee.playing, queue.pointee.startAt >= 0, queue.pointee.startAt < now &+ Int64(frames) {
            frame = Int(max(0, queue.pointee.startAt &- now))
            queue.pointee.playing = true
            queue.pointee.startAt = -1
        }
        guard queue.pointee.playing else {
            kernel.clock.publish(playing: false, anchor: 0, cycle: cycle.timeStamp, frames: frames)
            return RenderStatus.ok.rawValue
        }
        kernel.clock.publish(playing: true, anchor: now &+ Int64(frame) &- queue.pointee.playerTime, cycle: cycle.timeStamp, frames: frames)
        let count = frames &- frame
        let bits = kernel.rate.pointee.memory.load(ordering: .acquiring)
        let speed = min(PlayerRateMemory.maximumSpeed, max(1 / PlayerRateMemory.maximumSpeed, Double(bitPattern: kernel.rate.pointee.speed.load(ordering: .relaxed))))
        guard bits != 0, let memory = UnsafeMutablePointer<PlayerRateMemory>(bitPattern: bits) else {
            kernel.play(into: output, at: frame, count: count, now: now)
            return RenderStatus.ok.rawValue
        }
        let mode: PlayerRateMode
        if kernel.rate.pointee.keepsPitch.load(ordering: .relaxed) {
            let shifted = kernel.rate.pointee.pitchShifted.load(ordering: .relaxed)
            mode = speed == 1 && !shifted ? .identity : .stretch
        } else {
            mode = speed == 1 ? .identity : .varispeed
        }
        if mode != memory.pointee.lastMode {
            memory.pointee.restart()
            memory.pointee.lastMode = mode
        }
        switch mode {
        case .identity: kernel.play(into: output, at: frame, count: count, now: now)
        case .varispeed: kernel.varispeed(into: output, at: frame, count: count, now: now, speed: speed, memory: memory)
        case .stretch: kernel.stretch(into: output, at: frame, count: count, now: now, memory: memory)
        }
        return RenderStatus.ok.rawValue
    }

    /// Writes the next `count` frames of the timeline to `buffers` from `offset`, silence
    /// where nothing plays, finishing what ends. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func play(into buffers: AudioBuffers, at offset: Int, count: Int, now: Int64) {
        var frame = offset
        let end = offset &+ count
        while frame < end {
            let left = end &- frame
            guard queue.pointee.count > 0 else {
                for channel in 0..<buffers.channelCount { (buffers[channel] + frame).update(repeating: 0, count: left) }
                queue.pointee.playerTime &+= Int64(left)
                break
            }
            let slot = queue.pointee.regions + queue.pointee.head
            if slot.pointee.start == PlayerRegion.follows { slot.pointee.start = queue.pointee.playerTime }
            let region = slot.pointee, time = queue.pointee.playerTime
            if region.start > time {
                let gap = Int(min(Int64(left), region.start &- time))
                for channel in 0..<buffers.channelCount { (buffers[channel] + frame).update(repeating: 0, count: gap) }
                frame &+= gap
                queue.pointee.playerTime &+= Int64(gap)
                continue
            }
            var position = Int(time &- region.start)
            if region.frameCount == 0 {
                finishHead(at: now &+ Int64(frame), dropped: false)
                continue
            }
            if region.options.contains(.loops) {
                position %= region.frameCount
                if position == 0, time > region.start, region.options.contains(.endsAtLoop) {
                    finishHead(at: now &+ Int64(frame), dropped: false)
                    continue
                }
            } else if position >= region.frameCount {
                finishHead(at: now &+ Int64(frame), dropped: false)
                continue
            }
            let run = min(left, region.frameCount &- position)
            for channel in 0..<buffers.channelCount {
                let source = region.channels[min(channel, region.channelCount &- 1)] + position
                copySamples(from: source, to: buffers[channel] + frame, count: run)
            }
            frame &+= run
            queue.pointee.playerTime &+= Int64(run)
            if !region.options.contains(.loops), position &+ run == region.frameCount {
                finishHead(at: now &+ Int64(frame), dropped: false)
            }
        }
    }

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func take(_ command: PlayerCommand, now: Int64) {
        switch command.kind {
        case .region:
            guard var region = command.region else { return }
            if region.options.contains(.interrupts) { dropAll(at: now) }
            if region.options.contains(.interruptsAtLoop) {
                for index in 0..<queue.pointee.count {
                    let slot = queue.pointee.regions + (queue.pointee.head &+ index) % PlayerQueue.capacity
                    slot.pointee.options.insert(.endsAtLoop)
                }
            }
            guard queue.pointee.count < PlayerQueue.capacity else {
                _ = done.push(PlayerRegionDone(id: region.id, nodeTime: now, dropped: true))
                return
            }
            region.options.remove(.endsAtLoop)
            queue.pointee.regions[(queue.pointee.head &+ queue.pointee.count) % PlayerQueue.capacity] = region
            queue.pointee.count &+= 1
        case .play:
            guard !queue.pointee.playing else { return }
            queue.pointee.startAt = command.nodeTime < 0 ? now : command.nodeTime
        case .pause:
            queue.pointee.playing = false
            queue.pointee.startAt = -1
        case .stop:
            dropAll(at: now)
            let bits = rate.pointee.memory.load(ordering: .acquiring)
            if bits != 0, let memory = UnsafeMutablePointer<PlayerRateMemory>(bitPattern: bits) { memory.pointee.lastMode = .identity }
            queue.pointee.playing = false
            queue.pointee.startAt = -1
            queue.pointee.playerTime = 0
        }
    }

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func finishHead(at nodeTime: Int64, dropped: Bool) {
        let region = queue.pointee.regions[queue.pointee.head]
        _ = done.push(PlayerRegionDone(id: region.id, nodeTime: nodeTime, dropped: dropped))
        queue.pointee.head = (queue.pointee.head &+ 1) % PlayerQueue.capacity
        queue.pointee.count &-= 1
    }

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func dropAll(at nodeTime: Int64) {
        while queue.pointee.count > 0 { finishHead(at: nodeTime, dropped: true) }
    }
}
