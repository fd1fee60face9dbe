import Synchronization
import TrellisCore
import TrellisEngine
import TrellisUnits

/// What the player's control side, butler and render side share: generations,
/// positions and counters, placed in memory `FilePlayer` owns; each side holds a pointer.
struct PlayerShared: ~Copyable {
    let wantedGeneration = Atomic<UInt64>(0)
    let endedGeneration = Atomic<UInt64>(0)
    let publishedPosition = Atomic<Int64>(0)
    let publishedGeneration = Atomic<UInt64>(0)
    let prepared = Atomic<Bool>(false)
    let underrunCount = Atomic<Int>(0)
    /// Frames between time updates; 0 for none.
    let timeInterval = Atomic<Int>(0)
    /// The file is mono (spread over a wider output): pan places it with the mixer's
    /// equal-power law instead of balancing two channels.
    let monoSource = Atomic<Bool>(false)
}

/// The render side of a `FilePlayer`: takes transport commands, copies the ring's
/// frames of the current generation out with volume and pan, reports time, end of file
/// and underruns. Plain memory, made when the player initializes and freed when it
/// uninitializes. Thread: audio (and the rendering thread between cycles, offline).
struct FilePlayerKernel: UnitKernel {
    enum Mode: UInt8 { case idle, scheduled, playing, paused }

    let ring: FrameRing
    let shared: UnsafeMutablePointer<PlayerShared>
    let commands: SPSCRingEnd<PlayerCommand>
    let events: SPSCRingEnd<PlayerEvent>
    var mode = Mode.idle
    var startTime: Int64 = .min
    var generation: UInt64 = 0
    var slotOffset = 0
    var volume = SmoothedValue(1)
    var pan = SmoothedValue(0)
    var played: Int64 = 0
    var sinceTimeUpdate = 0
    var position: Int64 = 0
    var positionGeneration: UInt64 = 0

    init(ring: FrameRing, shared: UnsafeMutablePointer<PlayerShared>, commands: SPSCRingEnd<PlayerCommand>, events: SPSCRingEnd<PlayerEvent>) {
        self.ring = ring
        self.shared = shared
        self.commands = commands
        self.events = events
    }

    /// Takes a volume (0) or pan (1) change, over at least 64 frames.
    /// Thread: audio while rendering, else control.
    @inline(__always)
    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        setGain(index: index, value: value, frames: rampFrames > 0 ? rampFrames : 64)
    }

    @inline(__always)
    mutating func setGain(index: Int, value: Float, frames: Int) {
        // The rate (2) and varispeed (3) are the disk side's business.
        if index == 0 { volume.set(value, frames: frames) } else if index == 1 { pan.set(value, frames: frames) }
    }

    /// Drops up to `frames` frames of what the ring holds, as if they had played; stops
    /// short at the file's end, which the next read then reports. Thread: audio.
    @inline(__always)
    private mutating func skip(_ frames: Int) {
        var left = frames
        while left > 0, let slot = ring.readableSlot(), ring.header(slot).pointee.generation == generation {
            let header = ring.header(slot).pointee
            let take = min(header.frameCount &- slotOffset, left)
            slotOffset &+= take
            left &-= take
            position = header.position(at: slotOffset)
            positionGeneration = generation
            guard slotOffset == header.frameCount, !header.isEnd else { break }
            ring.release()
            slotOffset = 0
        }
    }

    /// Copies the next frames out of the ring, applying volume and pan. Thread: audio.
    @inline(__always)
    mutating func process(_ context: RenderContext) -> RenderStatus {
        let output = context.outputs[0]
        let frameCount = context.frameCount
        let now = context.timeStamp.sampleTime
        applyCommands()
        adoptGeneration()
        var written = 0
        switch mode {
        case .idle, .paused:
            output.clear(frameCount: frameCount)
            return .ok
        case .scheduled:
            if startTime != .min && startTime >= now &+ Int64(frameCount) {
                output.clear(frameCount: frameCount)
                return .ok
            }
            if startTime != .min && startTime < now {
                // A start whose command arrived late (by up to a second, what the ring
                // holds read ahead) plays as if it had begun on time, so players started
                // together stay together; an older time just starts now.
                let late = now &- startTime
                if late <= Int64(context.time.sampleRate) { skip(Int(late)) }
                written = 0
            } else {
                written = startTime == .min ? 0 : Int(startTime &- now)
            }
            mode = .playing
            silence(output, from: 0, count: written)
        case .playing:
            break
        }
        let start = written
        while written < frameCount {
            guard let slot = ring.readableSlot(), ring.header(slot).pointee.generation == generation else {
                let missing = frameCount &- written
                silence(output, from: written, count: missing)
                if shared.pointee.prepared.load(ordering: .relaxed) {
                    shared.pointee.underrunCount.wrappingAdd(1, ordering: .relaxed)
                    _ = events.push(PlayerEvent(kind: .underrun, sampleTime: now &+ Int64(written), value: Int64(missing), played: played, generation: generation))
                }
                break
            }
            let header = ring.header(slot).pointee
            let take = min(header.frameCount &- slotOffset, frameCount &- written)
            if take > 0 {
                copy(from: ring.buffers(slot), offset: slotOffset, to: output, at: written, frameCount: take)
                slotOffset &+= take
                written &+= take
                position = header.position(at: slotOffset)
                positionGeneration = generation
            }
            if slotOffset == header.frameCount {
                ring.release()
                slotOffset = 0
                if header.isEnd {
                    silence(output, from: written, count: frameCount &- written)
                    mode = .idle
                    shared.pointee.endedGeneration.store(generation, ordering: .releasing)
                    _ = events.push(PlayerEvent(kind: .endOfFile, sampleTime: now &+ Int64(written), value: position, played: played, generation: generation))
                    break
                }
            }
        }
        shared.pointee.publishedPosition.store(position, ordering: .relaxed)
        shared.pointee.publishedGeneration.store(positionGeneration, ordering: .releasing)
        reportTime(playedNow: written &- start, endTime: now &+ Int64(frameCount))
        return .ok
    }

    @inline(__always)
    private mutating func applyCommands() {
        while let command = commands.pop() {
            switch command.kind {
            case .play:
                if mode == .idle {
                    played = 0
                    sinceTimeUpdate = 0
                }
                if mode != .playing {
                    mode = .scheduled
                    startTime = command.sampleTime
                }
            case .pause:
                if mode == .playing || mode == .scheduled { mode = .paused }
            case .stop:
                mode = .idle
            }
        }
    }

    /// Takes up the newest generation and skips ring slots of older ones. Generations
    /// only grow, and a slot is never newer than `wantedGeneration`. Thread: the
    /// rendering thread.
    @inline(__always)
    mutating func adoptGeneration() {
        let wanted = shared.pointee.wantedGeneration.load(ordering: .acquiring)
        if wanted > generation {
            generation = wanted
            slotOffset = 0
            sinceTimeUpdate = 0
        }
        while let slot = ring.readableSlot() {
            let slotGeneration = ring.header(slot).pointee.generation
            if slotGeneration >= generation {
                if slotGeneration > generation {
                    generation = slotGeneration
                    slotOffset = 0
                }
                break
            }
            ring.release()
            slotOffset = 0
        }
    }

    @inline(__always)
    private func silence(_ output: AudioBuffers, from start: Int, count: Int) {
        var channel = 0
        while channel < output.channelCount {
            (output[channel] + start).update(repeating: 0, count: count)
            channel &+= 1
        }
    }

    @inline(__always)
    private mutating func copy(from source: AudioBuffers, offset: Int, to output: AudioBuffers, at start: Int, frameCount: Int) {
        let channels = output.channelCount
        let mono = shared.pointee.monoSource.load(ordering: .relaxed)
        if !volume.isRamping && !pan.isRamping {
            var channel = 0
            while channel < channels {
                let gain = Self.gain(channel: channel, of: channels, volume: volume.current, pan: pan.current, mono: mono)
                let from = source[channel] + offset, to = output[channel] + start
                if gain == 1 {
                    copySamples(from: from, to: to, count: frameCount)
                } else {
                    var frame = 0
                    while frame < frameCount {
                        to[frame] = from[frame] * gain
                        frame &+= 1
                    }
                }
                channel &+= 1
            }
            return
        }
        var frame = 0
        while frame < frameCount {
            let v = volume.next(), p = pan.next()
            var channel = 0
            while channel < channels {
                output[channel][start &+ frame] = source[channel][offset &+ frame] * Self.gain(channel: channel, of: channels, volume: v, pan: p, mono: mono)
                channel &+= 1
            }
            frame &+= 1
        }
    }

    /// The mixer's pan laws on two channels (`PanLaw`): a mono file is placed with
    /// equal power (-3 dB each side at the centre), a stereo one balanced; on other
    /// widths, volume alone.
    @inline(__always)
    static func gain(channel: Int, of channels: Int, volume: Float, pan: Float, mono: Bool) -> Float {
        guard channels == 2 else { return volume }
        // A centred stereo file passes through untouched (the law's centre is 1 only to
        // within a rounding).
        if !mono && pan == 0 { return volume }
        let (left, right) = mono ? PanLaw.mono(pan) : PanLaw.stereo(pan)
        return volume * (channel == 0 ? left : right)
    }

    @inline(__always)
    private mutating func reportTime(playedNow: Int, endTime: Int64) {
        guard playedNow > 0 else { return }
        played &+= Int64(playedNow)
        let interval = shared.pointee.timeInterval.load(ordering: .relaxed)
        guard interval > 0 else { return }
        sinceTimeUpdate &+= playedNow
        guard sinceTimeUpdate >= interval else { return }
        sinceTimeUpdate %= interval
        _ = events.push(PlayerEvent(kind: .time, sampleTime: endTime, value: position, played: played, generation: generation))
    }

    /// Whether the ring holds `wanted` frames of the current generation past the read
    /// position, or its end. Thread: the rendering thread, between cycles.
    func bufferedFrames(atLeast wanted: Int) -> Bool {
        var total = -slotOffset
        var index = 0
        while let slot = ring.readableSlot(at: index) {
            let header = ring.header(slot).pointee
            guard header.generation == generation else { return false }
            total += header.frameCount
            if total >= wanted || header.isEnd { return true }
            index += 1
        }
        return false
    }
}

extension FilePlayerKernel {
    /// The unit's entry: volume and pan changes land on their frames. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
