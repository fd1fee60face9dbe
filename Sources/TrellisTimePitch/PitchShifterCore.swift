import CRubberBand
import Glibc
import TrellisCore
import Synchronization

/// The real-time pitch shift's stretcher and what its owner works on: the input the
/// audio thread has written and the stretcher not yet taken, the output FIFO, the pitch
/// and formant setting it runs at. One thread owns the stretcher at a time: the audio
/// thread, or the mover thread while it makes a pitch move it was handed (Rubber Band
/// allocates when its ratio changes). Both rings have one writer and one reader. Plain
/// memory from an arena the unit makes with it and drops once no thread uses it.
struct PitchShifterCore: ~Copyable {
    let stretcher: OpaquePointer
    let channels: Int
    /// The largest call the stretcher takes (the unit's maximum frames per slice).
    let maximumFrames: Int
    /// Frames of silence the FIFO starts with: the stretcher's look-ahead at any pitch,
    /// a cycle and a hop.
    let latency: Int

    /// `channels` rings of `inputSize` frames: written by the audio thread, taken by the owner.
    let input: UnsafeMutablePointer<Float>
    let inputSize: Int
    let inputWritten = Atomic<Int>(0)
    let inputTaken = Atomic<Int>(0)

    /// `channels` rings of `fifoSize` frames: written by the owner, read by the audio thread.
    let fifo: UnsafeMutablePointer<Float>
    let fifoSize: Int
    let fifoWritten = Atomic<Int>(0)
    let fifoRead = Atomic<Int>(0)

    /// Scratch for what the stretcher gives (and silence to prime it): `channels` × `scratchFrames`.
    let scratch: UnsafeMutablePointer<Float>
    let scratchFrames: Int
    let inputTable: UnsafeMutablePointer<UnsafePointer<Float>?>
    let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>

    /// What the audio thread asks for; the owner makes it so.
    let wantedPitch: Atomic<UInt64>
    let wantedFormants: Atomic<Bool>
    /// A reset asked for while the mover had the stretcher.
    let resetWanted = Atomic<Bool>(false)
    /// True while the mover has the stretcher.
    let moving = Atomic<Bool>(false)
    /// Pitch moves made on the rendering thread itself (offline renders, LV2 hosts).
    let movesInPlace = Atomic<Bool>(false)

    // The owner's.
    private(set) var appliedPitch: Double
    private(set) var appliedFormants: Bool
    /// Frames of output the stretcher starts with that belong before the input.
    private var toDrop = 0
    /// True from a restart until input goes in.
    private var unstarted = true
    /// Frames the stretcher has given since the last pitch move.
    private var outputSinceMove = Int.max

    /// The rings, scratch and tables come from `memory`.
    init(stretcher: OpaquePointer, channels: Int, maximumFrames: Int, latency: Int, pitch: Double, formants: Bool, memory: Arena) {
        self.stretcher = stretcher
        self.channels = channels
        self.maximumFrames = maximumFrames
        self.latency = latency
        inputSize = Self.powerOfTwo(atLeast: 32_768)
        fifoSize = Self.powerOfTwo(atLeast: latency + 2 * maximumFrames + 8192)
        scratchFrames = max(maximumFrames, 8192)
        input = memory.take(channels * inputSize, repeating: 0)
        fifo = memory.take(channels * fifoSize, repeating: 0)
        scratch = memory.take(channels * scratchFrames, repeating: 0)
        inputTable = memory.take(channels, repeating: nil)
        outputTable = memory.take(channels, repeating: nil)
        wantedPitch = Atomic(pitch.bitPattern)
        wantedFormants = Atomic(formants)
        appliedPitch = pitch
        appliedFormants = formants
    }

    private static func powerOfTwo(atLeast count: Int) -> Int {
        var size = 1
        while size < count { size <<= 1 }
        return size
    }

    /// The pitch and formant setting the audio thread last asked for are the stretcher's.
    var isCurrent: Bool {
        wantedPitch.load(ordering: .relaxed) == appliedPitch.bitPattern && wantedFormants.load(ordering: .relaxed) == appliedFormants
    }

    /// Back to the start at the setting it has: the stretcher reset and primed, the FIFO
    /// `latency` frames of silence ahead of the reader, the input not taken dropped.
    /// Thread: the owner, while the audio thread neither writes input nor reads the FIFO.
    mutating func restart() {
        let stretcher = self.stretcher
        _unsafePerformance { rubberband_reset(stretcher) }
        fifo.update(repeating: 0, count: channels * fifoSize)
        fifoWritten.store(fifoRead.load(ordering: .acquiring) &+ latency, ordering: .releasing)
        inputTaken.store(inputWritten.load(ordering: .acquiring), ordering: .releasing)
        prime()
    }

    /// The start pad as silence, so the stretcher's first frame is the input's first, and
    /// its start delay to drop, both for the pitch now set (on a stretcher just reset).
    private mutating func prime() {
        let stretcher = self.stretcher, inputTable = self.inputTable
        unstarted = true
        toDrop = Int(_unsafePerformance { rubberband_get_start_delay(stretcher) })
        scratch.update(repeating: 0, count: channels * scratchFrames)
        for channel in 0..<channels { inputTable[channel] = UnsafePointer(scratch + channel * scratchFrames) }
        var pad = Int(_unsafePerformance { rubberband_get_preferred_start_pad(stretcher) })
        while pad > 0 {
            let count = min(pad, scratchFrames)
            _unsafePerformance { rubberband_process(stretcher, inputTable, UInt32(count), 0) }
            pad -= count
        }
    }

    /// Takes the pitch and formant setting asked for. A pitch move before any input went
    /// in primes the stretcher again, for the new start delay. Allocates inside Rubber
    /// Band when the ratio is new to it. Thread: the owner (the audio thread only offline).
    mutating func applyWanted() {
        let stretcher = self.stretcher
        let formants = wantedFormants.load(ordering: .relaxed)
        if formants != appliedFormants {
            appliedFormants = formants
            let option = formants ? RubberBandOptionFormantPreserved.rawValue : RubberBandOptionFormantShifted.rawValue
            _unsafePerformance { rubberband_set_formant_option(stretcher, Int32(option)) }
        }
        let pitch = Double(bitPattern: wantedPitch.load(ordering: .relaxed))
        guard pitch != appliedPitch else { return }
        appliedPitch = pitch
        outputSinceMove = 0
        _unsafePerformance { rubberband_set_pitch_scale(stretcher, pitch) }
        if unstarted {
            _unsafePerformance { rubberband_reset(stretcher) }
            prime()
        }
    }

    /// Writes a cycle's input for the owner to take; a ring the owner has not emptied for
    /// over half a second drops it. Thread: audio.
    func write(_ source: AudioBuffers, frames: Int) {
        let written = inputWritten.load(ordering: .relaxed)
        guard written - inputTaken.load(ordering: .acquiring) + frames <= inputSize else { return }
        let mask = inputSize - 1
        for channel in 0..<channels {
            let from = source[min(channel, source.channelCount - 1)], ring = input + channel * inputSize
            for frame in 0..<frames { ring[(written &+ frame) & mask] = from[frame] }
        }
        inputWritten.store(written &+ frames, ordering: .releasing)
    }

    /// Gives the stretcher every input frame written and moves what it gives into the FIFO.
    /// Thread: the owner.
    mutating func pump() {
        let stretcher = self.stretcher, inputTable = self.inputTable
        let written = inputWritten.load(ordering: .acquiring)
        var taken = inputTaken.load(ordering: .relaxed)
        while taken != written {
            let offset = taken & (inputSize - 1)
            let count = min(written - taken, min(inputSize - offset, maximumFrames))
            for channel in 0..<channels { inputTable[channel] = UnsafePointer(input + channel * inputSize + offset) }
            _unsafePerformance { rubberband_process(stretcher, inputTable, UInt32(count), 0) }
            unstarted = false
            taken &+= count
            inputTaken.store(taken, ordering: .releasing)
            drain()
        }
    }

    private mutating func drain() {
        let stretcher = self.stretcher, outputTable = self.outputTable, scratchFrames = self.scratchFrames
        let mask = fifoSize - 1
        var position = fifoWritten.load(ordering: .relaxed)
        while true {
            let ready = Int(_unsafePerformance { rubberband_available(stretcher) })
            guard ready > 0 else { break }
            for channel in 0..<channels { outputTable[channel] = scratch + channel * scratchFrames }
            let got = Int(_unsafePerformance { rubberband_retrieve(stretcher, outputTable, UInt32(min(ready, scratchFrames))) })
            guard got > 0 else { break }
            outputSinceMove &+= got
            let dropped = min(toDrop, got)
            toDrop -= dropped
            let read = fifoRead.load(ordering: .acquiring)
            for frame in dropped..<got where position - read < fifoSize {
                for channel in 0..<channels { fifo[channel * fifoSize + (position & mask)] = scratch[channel * scratchFrames + frame] }
                position &+= 1
            }
            fifoWritten.store(position, ordering: .releasing)
        }
    }

    /// Fills `frames` of `output` from the FIFO, silence where it has run dry. Thread: audio.
    func read(into output: AudioBuffers, frames: Int) {
        let count = min(channels, output.channelCount), mask = fifoSize - 1
        let written = fifoWritten.load(ordering: .acquiring)
        var position = fifoRead.load(ordering: .relaxed)
        for frame in 0..<frames {
            let available = written - position > 0
            for channel in 0..<count {
                output[channel][frame] = available ? fifo[channel * fifoSize + (position & mask)] : 0
            }
            if available { position &+= 1 }
        }
        fifoRead.store(position, ordering: .releasing)
    }

    /// Frames the stretcher gives at a new pitch before the mover hands it back.
    static let settlingFrames = 8192

    /// The mover's turn: every move and reset asked for made, the input written meanwhile
    /// taken, and the stretcher handed back once it has given `settlingFrames` at the new
    /// pitch (Rubber Band builds its resampler's tables for a new ratio when it first
    /// resamples a chunk, a hop or so of input after the move). Thread: the mover.
    mutating func makeMoves() {
        guard moving.load(ordering: .acquiring) else { return }
        var waits = 0
        while true {
            if resetWanted.load(ordering: .acquiring) {
                restart()
                resetWanted.store(false, ordering: .releasing)
            }
            applyWanted()
            pump()
            if !isCurrent || resetWanted.load(ordering: .acquiring) { continue }
            // Half a second at most: the audio thread writes a hop within a few cycles.
            guard outputSinceMove < Self.settlingFrames && !unstarted && waits < 500 else { break }
            waits += 1
            usleep(1_000)
        }
        moving.store(false, ordering: .releasing)
    }
}
