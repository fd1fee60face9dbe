import TrellisAudioFile
import TrellisCore
import TrellisTimePitch
import TrellisUnits

/// A player's rate at unchanged pitch: the file at the output rate, stretched by Rubber
/// Band. Played once in an offline render, the whole rest of the file is stretched at
/// the restart, studied first as the `rubberband` command does (so the length is exact,
/// the file's over the rate); otherwise a real-time stretcher streams, primed with its
/// start pad and with its start delay dropped, so it stays in time with the file.
struct PlayerStretch {
    /// Real time: the stretcher and the output frames still to drop.
    var stretcher: TimeStretcher?
    var toDrop = 0
    var finalSent = false
    /// Offline: the stretched rest of the file (file channels), and how far it has been played.
    var rendered: AudioBufferList?
    var renderedFrames = 0
    var renderedOffset = 0
    /// Output-rate staging for the real-time stretcher's input and output.
    let staging: AudioBufferList
    let stagedOut: AudioBufferList
    let inputs: UnsafeMutablePointer<UnsafePointer<Float>?>
    let outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// The two tables, freed with the last copy of the stretch.
    private let memory = Arena(firstBlock: 1024)

    init(channels: Int, frames: Int) {
        staging = AudioBufferList(channelCount: channels, frameCapacity: frames)
        stagedOut = AudioBufferList(channelCount: channels, frameCapacity: frames)
        inputs = memory.take(channels)
        outputs = memory.take(channels)
        for channel in 0..<channels {
            inputs[channel] = UnsafePointer(staging[0][channel])
            outputs[channel] = stagedOut[0][channel]
        }
    }
}

extension PlayerStream {
    /// Stretches the rest of the file from the reader's position into memory, offline.
    func renderStretched(speed: Double, cents: Double) throws(AudioFileError) -> (AudioBufferList, Int) {
        let channels = reader.info.channelCount
        var signal = Array(repeating: [Float](), count: channels)
        let chunk = AudioBufferList(channelCount: channels, frameCapacity: 65_536)
        while true {
            let got = try reader.read(into: chunk[0], frameCount: 65_536)
            if got == 0 { break }
            for channel in 0..<channels { signal[channel] += UnsafeBufferPointer(start: chunk[0][channel], count: got) }
        }
        if fileRate != outputRate, let converted = try? SampleRateConverter.convert(signal, from: fileRate, to: outputRate) {
            signal = converted
        }
        let stretched = TimeStretcher.stretch(signal, sampleRate: outputRate, settings: StretchSettings(rate: speed, cents: cents))
        let frames = stretched.first?.count ?? 0
        let list = AudioBufferList(channelCount: channels, frameCapacity: max(1, frames))
        for channel in 0..<channels { list[0][channel].update(from: stretched[channel], count: frames) }
        return (list, frames)
    }

    /// A real-time stretcher at `speed`, primed.
    func startStretcher(_ stretch: inout PlayerStretch, speed: Double, cents: Double) {
        let channels = reader.info.channelCount
        let stretcher = stretch.stretcher ?? TimeStretcher(sampleRate: outputRate, channels: channels, realTime: true,
                                                           settings: StretchSettings(rate: speed, cents: cents), maximumBlock: stretch.staging.frameCapacity)
        stretcher.reset()
        stretcher.update(StretchSettings(rate: speed, cents: cents))
        // The start pad as silence, so the first output frame is the first input frame.
        var pad = stretcher.startPad
        stretch.staging[0].clear(frameCount: stretch.staging.frameCapacity)
        while pad > 0 {
            let count = min(pad, stretch.staging.frameCapacity)
            stretcher.process(stretch.inputs, frames: count, final: false)
            pad -= count
        }
        stretch.stretcher = stretcher
        stretch.toDrop = stretcher.startDelay
        stretch.finalSent = false
    }

    /// One slot from the offline stretch in memory.
    func renderedSlot(_ stretch: inout PlayerStretch, into buffers: AudioBuffers, capacity: Int, header: UnsafeMutablePointer<FrameSlotHeader>) -> Int {
        guard let rendered = stretch.rendered else { return 0 }
        let count = min(capacity, stretch.renderedFrames - stretch.renderedOffset)
        if count > 0 {
            ChannelMapping.map(rendered[0], from: stretch.renderedOffset, to: buffers, at: 0, frameCount: count)
            stretch.renderedOffset += count
        }
        if stretch.renderedOffset >= stretch.renderedFrames { header.pointee.isEnd = true }
        return max(0, count)
    }

    /// One slot from the real-time stretcher, fed by `source` (output-rate file frames).
    func stretchedSlot(
        _ stretch: inout PlayerStretch, into buffers: AudioBuffers, capacity: Int, header: UnsafeMutablePointer<FrameSlotHeader>,
        source: (AudioBuffers, Int, UnsafeMutablePointer<FrameSlotHeader>) throws(AudioFileError) -> Int
    ) throws(AudioFileError) -> Int {
        guard let stretcher = stretch.stretcher else { return 0 }
        var filled = 0
        while filled < capacity {
            let ready = stretcher.available
            if ready < 0 {
                header.pointee.isEnd = true
                break
            }
            if ready > 0 {
                let take = min(ready, stretch.stagedOut.frameCapacity, stretch.toDrop + capacity - filled)
                let got = stretcher.retrieve(stretch.outputs, frames: take)
                let dropped = min(stretch.toDrop, got)
                stretch.toDrop -= dropped
                if got > dropped { ChannelMapping.map(stretch.stagedOut[0], from: dropped, to: buffers, at: filled, frameCount: got - dropped) }
                filled += got - dropped
                continue
            }
            if stretch.finalSent { break }
            var staged = FrameSlotHeader()
            let wanted = max(1, min(stretch.staging.frameCapacity, stretcher.framesRequired))
            let got = try source(stretch.staging[0], wanted, &staged)
            stretcher.process(stretch.inputs, frames: got, final: staged.isEnd)
            if staged.isEnd { stretch.finalSent = true }
            if got == 0 && !staged.isEnd { break }
        }
        return filled
    }
}
