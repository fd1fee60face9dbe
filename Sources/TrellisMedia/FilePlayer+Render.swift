import TrellisCore
import TrellisEngine

extension FilePlayer {
    /// Copies the next frames out of the ring, applying volume and pan. Thread: audio.
    @inline(__always)
    func renderPlayer(_ context: RenderContext) -> RenderStatus {
        let output = context.outputs[0]
        let frameCount = context.frameCount
        let now = context.timeStamp.sampleTime
        applyCommands()
        guard let ring else {
            output.clear(frameCount: frameCount)
            return .ok
        }
        adoptGeneration(ring)
        var written = 0
        switch mode {
        case .idle, .paused:
            output.clear(frameCount: frameCount)
            return .ok
        case .scheduled:
            if startTime != .min && startTime >= now + Int64(frameCount) {
                output.clear(frameCount: frameCount)
                return .ok
            }
            written = startTime == .min ? 0 : max(0, Int(startTime - now))
            mode = .playing
            for channel in 0..<output.channelCount { output[channel].update(repeating: 0, count: written) }
        case .playing:
            break
        }
        let start = written
        while written < frameCount {
            guard let slot = ring.readableSlot(), ring.header(slot).pointee.generation == generation else {
                let missing = frameCount - written
                for channel in 0..<output.channelCount { (output[channel] + written).update(repeating: 0, count: missing) }
                if prepared.load(ordering: .relaxed) {
                    underrunCount.add(1, ordering: .relaxed)
                    _ = events.push(PlayerEvent(kind: .underrun, sampleTime: now + Int64(written), value: Int64(missing), played: played, generation: generation))
                }
                break
            }
            let header = ring.header(slot).pointee
            let take = min(header.frameCount - slotOffset, frameCount - written)
            if take > 0 {
                copy(from: ring.buffers(slot), offset: slotOffset, to: output, at: written, frameCount: take)
                slotOffset += take
                written += take
                position = header.position + Int64(slotOffset)
                positionGeneration = generation
            }
            if slotOffset == header.frameCount {
                ring.release()
                slotOffset = 0
                if header.isEnd {
                    for channel in 0..<output.channelCount {
                        (output[channel] + written).update(repeating: 0, count: frameCount - written)
                    }
                    mode = .idle
                    endedGeneration.store(generation, ordering: .releasing)
                    _ = events.push(PlayerEvent(kind: .endOfFile, sampleTime: now + Int64(written), value: position, played: played, generation: generation))
                    break
                }
            }
        }
        publishedPosition.store(position, ordering: .relaxed)
        publishedGeneration.store(positionGeneration, ordering: .releasing)
        reportTime(playedNow: written - start, endTime: now + Int64(frameCount))
        return .ok
    }

    @inline(__always)
    private func applyCommands() {
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
    func adoptGeneration(_ ring: FrameRing) {
        let wanted = wantedGeneration.load(ordering: .acquiring)
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
    private func copy(from source: AudioBuffers, offset: Int, to output: AudioBuffers, at start: Int, frameCount: Int) {
        let channels = output.channelCount
        if !volume.isRamping && !pan.isRamping {
            for channel in 0..<channels {
                let gain = Self.gain(channel: channel, of: channels, volume: volume.current, pan: pan.current)
                let from = source[channel] + offset, to = output[channel] + start
                if gain == 1 {
                    to.update(from: from, count: frameCount)
                } else {
                    for frame in 0..<frameCount { to[frame] = from[frame] * gain }
                }
            }
            return
        }
        for frame in 0..<frameCount {
            let v = volume.next(), p = pan.next()
            for channel in 0..<channels {
                output[channel][start + frame] = source[channel][offset + frame] * Self.gain(channel: channel, of: channels, volume: v, pan: p)
            }
        }
    }

    /// Balance pan on two channels, volume alone otherwise.
    @inline(__always)
    static func gain(channel: Int, of channels: Int, volume: Float, pan: Float) -> Float {
        guard channels == 2 else { return volume }
        if channel == 0 { return pan <= 0 ? volume : volume * (1 - pan) }
        return pan >= 0 ? volume : volume * (1 + pan)
    }

    @inline(__always)
    private func reportTime(playedNow: Int, endTime: Int64) {
        guard playedNow > 0 else { return }
        played += Int64(playedNow)
        let interval = timeInterval.load(ordering: .relaxed)
        guard interval > 0 else { return }
        sinceTimeUpdate += playedNow
        guard sinceTimeUpdate >= interval else { return }
        sinceTimeUpdate %= interval
        _ = events.push(PlayerEvent(kind: .time, sampleTime: endTime, value: position, played: played, generation: generation))
    }

    // MARK: - Offline

    /// Waits until the ring holds the next `frameCount` frames (or the stream's end), so
    /// an offline cycle never underruns. Returns at once when nothing is prepared.
    /// Thread: the rendering thread, between cycles.
    public func waitForStreaming(frameCount: Int) {
        guard let ring else { return }
        let deadline = HostClock.now() + 30_000_000_000
        while prepared.load(ordering: .acquiring) {
            adoptGeneration(ring)
            // Played to its end: nothing more will come, whatever the notifier is doing.
            if endedGeneration.load(ordering: .relaxed) == generation { return }
            if bufferedFrames(ring, atLeast: frameCount) { return }
            if HostClock.now() > deadline { return }
            MediaThreads.butler.wake()
            sleepBriefly()
        }
    }

    /// Whether the ring holds `wanted` frames of the current generation past the read
    /// position, or its end. Thread: the rendering thread.
    private func bufferedFrames(_ ring: FrameRing, atLeast wanted: Int) -> Bool {
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
