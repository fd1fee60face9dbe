import TrellisAudioFile
import TrellisCore
import TrellisUnits

/// The disk side of a prepared player: the open file, the rate converter, and where
/// reading stands. It turns the file (looped as asked) into slots of output-rate audio
/// at the player's channel count, played `speed` times as fast (varispeed: the file's
/// rate times the speed is converted to the output's).
///
/// Thread: whoever holds the player's lock (the butler, or control for seeks).
final class PlayerStream {
    let reader: AudioFileReader
    let fileFrames: Int
    let fileRate: Double
    let outputRate: Double
    private(set) var generation: UInt64 = 0
    /// Passes over the end of the file so far in this play-through.
    private(set) var loopsDone = 0
    /// The final slot has been published; nothing more until `restart`.
    private(set) var ended = false
    /// Reading failed; only the closing slot is still to publish.
    private(set) var failed = false

    private var resampler: SampleRateConverter?
    /// The player's rate: file time per output time (AVAudioPlayer's `rate`).
    private(set) var speed: Double = 1
    /// True: the rate moves the pitch with it (resampled); false: the pitch stays (stretched).
    private(set) var varispeed = false
    /// A pitch shift in cents, with the stretch (a time-pitch unit's, handed to the player).
    private(set) var cents: Double = 0
    /// Stretch offline, exactly, when the stream restarts (an offline render playing once).
    private(set) var exact = false
    /// The stretch, while the rate is not 1 and not varispeed.
    private var stretch: PlayerStretch?
    private let scratch: AudioBufferList
    private let converted: AudioBufferList
    private let inputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let memory = Arena(firstBlock: 1024)
    private var readFrame = 0
    /// Output-rate frames of file time from the file's start to the next frame produced
    /// (fractional when the rate is not 1).
    private var position: Double = 0
    private var pendingOffset = 0
    private var pendingCount = 0
    private var inputEnded = false

    /// Thread: control.
    init(reader: AudioFileReader, outputRate: Double, slotFrames: Int) throws(MediaError) {
        self.reader = reader
        fileFrames = reader.info.frameCount
        fileRate = reader.info.sampleRate
        self.outputRate = outputRate
        let channels = reader.info.channelCount
        resampler = fileRate == outputRate ? nil : try makeConverter(from: fileRate, to: outputRate, channels: channels)
        scratch = AudioBufferList(channelCount: channels, frameCapacity: slotFrames)
        converted = AudioBufferList(channelCount: channels, frameCapacity: slotFrames)
        inputTable = memory.take(channels, repeating: scratch[0][0])
    }

    deinit {
        reader.close()
    }

    /// Output-rate position of a file frame.
    func outputPosition(ofFileFrame frame: Int) -> Int64 {
        resampler == nil ? Int64(frame) : Int64((Double(frame) * outputRate / fileRate).rounded())
    }

    /// Plays the file `speed` times as fast: with `varispeed`, pitch moving with it,
    /// through the resampler; without, at its pitch, through Rubber Band (`exact`: the
    /// whole rest of the file at once, offline). Takes effect at the next `restart`.
    /// Thread: lock holder.
    func setSpeed(_ speed: Double, cents: Double = 0, varispeed: Bool = false, exact: Bool = false) throws(MediaError) {
        guard speed != self.speed || cents != self.cents || varispeed != self.varispeed || exact != self.exact else { return }
        let channels = reader.info.channelCount
        let stretching = (speed != 1 || cents != 0) && !varispeed
        let resampled = stretching ? 1 : speed
        resampler = fileRate == outputRate && resampled == 1 ? nil : try makeConverter(from: fileRate * resampled, to: outputRate, channels: channels)
        if stretching, stretch == nil {
            stretch = PlayerStretch(channels: channels, frames: scratch.frameCapacity)
        } else if !stretching {
            stretch = nil
        }
        self.speed = speed
        self.cents = stretching ? cents : 0
        self.varispeed = varispeed
        self.exact = exact
    }

    /// Starts producing from `frame` under a new generation. Thread: lock holder.
    func restart(atFileFrame frame: Int, generation: UInt64) throws(AudioFileError) {
        try reader.seek(toFrame: frame)
        self.generation = generation
        readFrame = frame
        position = Double(outputPosition(ofFileFrame: frame))
        resampler?.reset()
        pendingOffset = 0
        pendingCount = 0
        inputEnded = false
        ended = false
        failed = false
        if var stretch {
            if exact {
                (stretch.rendered, stretch.renderedFrames) = try renderStretched(speed: speed, cents: cents)
                stretch.renderedOffset = 0
                stretch.stretcher = nil
            } else {
                stretch.rendered = nil
                startStretcher(&stretch, speed: speed, cents: cents)
            }
            self.stretch = stretch
        }
    }

    /// Fills free slots of `ring`; returns how many it published. `loopCount` is the
    /// player's (0 once, n extra passes, negative forever). Thread: lock holder.
    func fill(_ ring: FrameRing, loopCount: Int) throws(AudioFileError) -> Int {
        var published = 0
        while !ended && !failed, let slot = ring.writableSlot() {
            let header = ring.header(slot)
            header.pointee = FrameSlotHeader()
            header.pointee.generation = generation
            let made = stretch != nil
                ? try stretchSlot(into: ring.buffers(slot), capacity: ring.frameCapacity, header: header, loopCount: loopCount)
                : resampler == nil
                ? try copySlot(into: ring.buffers(slot), capacity: ring.frameCapacity, header: header, loopCount: loopCount)
                : try convertSlot(into: ring.buffers(slot), capacity: ring.frameCapacity, header: header, loopCount: loopCount)
            guard made > 0 || header.pointee.isEnd else { break }
            header.pointee.frameCount = made
            if header.pointee.isEnd { ended = true }
            ring.commit()
            published += 1
        }
        return published
    }

    /// Marks the stream failed and publishes a last, empty slot (now or on a later
    /// call, once there is room) so the render side ends cleanly; true when published.
    @discardableResult
    func endAfterFailure(_ ring: FrameRing) -> Bool {
        failed = true
        guard !ended, let slot = ring.writableSlot() else { return false }
        ring.header(slot).pointee = FrameSlotHeader(generation: generation, position: Int64(position.rounded()), speed: speed, isEnd: true)
        ring.commit()
        ended = true
        return true
    }

    /// A slot of the stretched file: from memory offline, else through the real-time
    /// stretcher fed by the file at the output rate (looped as asked).
    private func stretchSlot(
        into buffers: AudioBuffers, capacity: Int, header: UnsafeMutablePointer<FrameSlotHeader>, loopCount: Int
    ) throws(AudioFileError) -> Int {
        guard var stretch else { return 0 }
        defer { self.stretch = stretch }
        header.pointee.position = Int64(position.rounded())
        header.pointee.speed = speed
        let made: Int
        if stretch.rendered != nil {
            made = renderedSlot(&stretch, into: buffers, capacity: capacity, header: header)
        } else {
            made = try stretchedSlot(&stretch, into: buffers, capacity: capacity, header: header) { staging, wanted, staged throws(AudioFileError) in
                let kept = position
                defer { position = kept }
                return resampler == nil
                    ? try copySlot(into: staging, capacity: wanted, header: staged, loopCount: loopCount)
                    : try convertSlot(into: staging, capacity: wanted, header: staged, loopCount: loopCount)
            }
        }
        position += Double(made) * speed
        // Looping, the position goes round with the file, as the unstretched paths' does.
        let outputLength = Double(outputPosition(ofFileFrame: fileFrames))
        if loopCount != 0, outputLength > 0, position >= outputLength { position = position.truncatingRemainder(dividingBy: outputLength) }
        return made
    }

    private func shouldLoop(_ loopCount: Int) -> Bool {
        fileFrames > 0 && (loopCount < 0 || loopsDone < loopCount)
    }

    private func wrap() throws(AudioFileError) {
        try reader.seek(toFrame: 0)
        readFrame = 0
        loopsDone += 1
    }

    /// Same rate: file frames go straight into the slot. A slot never spans the loop
    /// point, so its header's position is exact.
    private func copySlot(
        into buffers: AudioBuffers, capacity: Int, header: UnsafeMutablePointer<FrameSlotHeader>, loopCount: Int
    ) throws(AudioFileError) -> Int {
        var filled = 0
        while filled < capacity {
            if readFrame >= fileFrames {
                guard shouldLoop(loopCount) else {
                    header.pointee.isEnd = true
                    break
                }
                if filled > 0 { break }
                try wrap()
                position = 0
            }
            if filled == 0 { header.pointee.position = Int64(position) }
            let count = min(capacity - filled, fileFrames - readFrame)
            let got = try reader.read(into: scratch[0], frameCount: count)
            if got == 0 {
                // The file is shorter than its header said: its end is here.
                readFrame = fileFrames
                continue
            }
            ChannelMapping.map(scratch[0], to: buffers, at: filled, frameCount: got)
            filled += got
            readFrame += got
            position += Double(got)
        }
        return filled
    }

    /// Another rate: the file, looped without a break, runs through the resampler; the
    /// filter's tail is drained at the real end.
    private func convertSlot(
        into buffers: AudioBuffers, capacity: Int, header: UnsafeMutablePointer<FrameSlotHeader>, loopCount: Int
    ) throws(AudioFileError) -> Int {
        guard let resampler else { return 0 }
        let outputLength = Double(outputPosition(ofFileFrame: fileFrames))
        header.pointee.position = Int64(position.rounded())
        header.pointee.speed = speed
        var filled = 0
        while filled < capacity {
            var made = 0
            if pendingCount == 0 && !inputEnded {
                if readFrame >= fileFrames {
                    if shouldLoop(loopCount) { try wrap() } else { inputEnded = true }
                    continue
                }
                let got = try reader.read(into: scratch[0], frameCount: min(scratch.frameCapacity, fileFrames - readFrame))
                if got == 0 { readFrame = fileFrames; continue }
                readFrame += got
                pendingOffset = 0
                pendingCount = got
            }
            if inputEnded {
                made = resampler.flush(output: converted[0], outputCapacity: capacity - filled)
                if made == 0 {
                    header.pointee.isEnd = true
                    break
                }
            } else {
                for channel in 0..<scratch[0].channelCount { inputTable[channel] = scratch[0][channel] + pendingOffset }
                let input = AudioBuffers(channelPointers: UnsafePointer(inputTable), channelCount: scratch[0].channelCount)
                let step = resampler.process(input: input, inputFrames: pendingCount, output: converted[0], outputCapacity: capacity - filled)
                if step.consumed == 0 && step.produced == 0 { break }
                pendingOffset += step.consumed
                pendingCount -= step.consumed
                made = step.produced
            }
            ChannelMapping.map(converted[0], to: buffers, at: filled, frameCount: made)
            filled += made
            position += Double(made) * speed
            if outputLength > 0 && position >= outputLength && !inputEnded { position -= outputLength }
        }
        return filled
    }
}
