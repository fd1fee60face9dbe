import TrellisCore

/// One event of a loaded song at the graph's rate.
struct SongEvent {
    var frame: Int64
    /// 1 + the track, the bus that carries that track alone; bus 0 carries them all.
    var bus: Int32
    var message: MIDIMessage
}

/// MIDIFilePlayer's real-time half: a song's events in frames, played as the transport
/// reaches them. Each cycle it sends the events whose frame falls in the cycle's stretch
/// of song time (`transportFrame - start`, wrapped by the song's length while it loops),
/// on bus 0 and on their track's bus, at their frame in the cycle. When the transport
/// stops or jumps, the notes it left sounding are ended first. Plain memory, allocated
/// by the unit. Thread: audio.
struct MIDIFilePlayerKernel: CallKernel {
    let events: UnsafeMutablePointer<SongEvent>
    let count: Int
    /// The song's length in frames, and how often it plays again (-1: without end).
    let length: Int64
    let loops: Int
    /// Where on the transport song time zero is (the `start` parameter, in frames).
    var start: Int64
    let sampleRate: Double
    let busCount: Int
    /// Notes sounding, per bus, channel and key: (busCount × 16 × 128) counters.
    let held: UnsafeMutablePointer<UInt8>
    /// The next event to send, and the transport frame the next cycle should start at
    /// when nothing moved it.
    var cursor = 0
    var expected: Int64 = -1
    var wasRolling = false
    /// Set once the song has played to its end (for the control side). Thread: audio
    /// writes, control reads after the cycle.
    let ended: UnsafeMutablePointer<Bool>

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderCall(state, context)
    }

    mutating func reset() {
        cursor = 0
        expected = -1
    }

    mutating func render(_ context: RenderContext) -> RenderStatus {
        // A new start (the one parameter) moves the song, as a jump, from this cycle.
        for index in 0..<context.events.count where context.events[index].kind == .parameter && context.events[index].index == 0 {
            start = Int64(Double(context.events[index].value) * sampleRate + 0.5)
            expected = -1
        }
        let time = context.time, outputs = context.midiOutputs
        let frames = Int64(context.frameCount)
        guard time.isRolling else {
            if wasRolling { silenceHeldNotes(outputs) }
            wasRolling = false
            expected = -1
            return .ok
        }
        let moved = time.changed || time.transportFrame != expected || !wasRolling
        wasRolling = true
        expected = time.transportFrame &+ frames
        var songFrame = time.transportFrame &- start
        var cycleOffset: Int64 = 0
        if moved {
            silenceHeldNotes(outputs)
            if loops < 0 || songFrame < length * Int64(loops + 1) { ended.pointee = false }
            cursor = firstEvent(atOrAfter: position(of: max(0, songFrame)).within)
        }
        // The cycle may cross the song's end once or more while it loops.
        while cycleOffset < frames {
            let remaining = frames - cycleOffset
            if songFrame < 0 {
                let wait = min(remaining, -songFrame)
                cycleOffset += wait
                songFrame += wait
                continue
            }
            let (pass, within) = position(of: songFrame)
            guard loops < 0 || pass <= Int64(loops), length > 0 else {
                ended.pointee = true
                break
            }
            let stretch = min(remaining, length - within)
            // Events on the song's last frame (its end of track) go with its last stretch.
            let limit = within + stretch >= length ? length + 1 : within + stretch
            while cursor < count && events[cursor].frame < limit {
                let event = events[cursor]
                if event.frame >= within { send(event, at: Int32(min(frames - 1, cycleOffset + event.frame - within)), outputs) }
                cursor &+= 1
            }
            cycleOffset += stretch
            songFrame += stretch
            if within + stretch >= length {
                // The song's end: its notes end, and the next pass starts from the top.
                silenceHeldNotes(outputs, at: Int32(min(frames - 1, cycleOffset)))
                cursor = 0
                if loops >= 0 && pass >= Int64(loops) { ended.pointee = true }
            }
        }
        return .ok
    }

    /// Which pass of the song a song frame is in, and where in that pass.
    private func position(of songFrame: Int64) -> (pass: Int64, within: Int64) {
        guard length > 0 else { return (0, songFrame) }
        return (songFrame / length, songFrame % length)
    }

    private func firstEvent(atOrAfter frame: Int64) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].frame < frame { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// On bus 0, and on the event's track bus when the file's tracks have buses of their
    /// own (a one-track file's events are on bus 0 alone, once).
    private func send(_ event: SongEvent, at offset: Int32, _ outputs: MIDIBuses) {
        sendOn(0, event.message, at: offset, outputs)
        if event.bus != 0 { sendOn(Int(event.bus), event.message, at: offset, outputs) }
    }

    private func sendOn(_ bus: Int, _ message: MIDIMessage, at offset: Int32, _ outputs: MIDIBuses) {
        guard bus < outputs.count, bus < busCount else { return }
        _ = outputs[bus].append(status: message.status, data1: message.data1, data2: message.data2, length: message.length, offset: offset)
        track(message, bus: bus)
    }

    /// Counts the notes a message starts or ends.
    private func track(_ message: MIDIMessage, bus: Int) {
        let kind = message.status & 0xF0, channel = Int(message.status & 0x0F), key = Int(message.data1)
        let slot = (bus * 16 + channel) * 128 + key
        if kind == 0x90 && message.data2 > 0 {
            held[slot] = held[slot] &+ 1
        } else if kind == 0x80 || kind == 0x90, held[slot] > 0 {
            held[slot] -= 1
        }
    }

    /// A note off for every note still sounding, and the sustain pedal up where a
    /// channel had notes, at `offset`.
    private func silenceHeldNotes(_ outputs: MIDIBuses, at offset: Int32 = 0) {
        for bus in 0..<min(busCount, outputs.count) {
            for channel in 0..<16 {
                var any = false
                for key in 0..<128 {
                    let slot = (bus * 16 + channel) * 128 + key
                    guard held[slot] > 0 else { continue }
                    held[slot] = 0
                    any = true
                    _ = outputs[bus].append(status: 0x80 | UInt8(channel), data1: UInt8(key), data2: 0, length: 3, offset: offset)
                }
                if any { _ = outputs[bus].append(status: 0xB0 | UInt8(channel), data1: 64, data2: 0, length: 3, offset: offset) }
            }
        }
    }
}
