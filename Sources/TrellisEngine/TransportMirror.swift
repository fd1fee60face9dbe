import Synchronization
import TrellisCore

/// The transport as the audio thread left it after its last cycle, in atomics the
/// control side reads for `status` and to turn bars and beats into frames. Each field
/// is read alone, so a reading taken while a cycle ends may mix two cycles; a status
/// line does not mind, and a locate is one frame at most off a tempo change it raced.
/// Thread: audio writes, any reads.
struct TransportMirror: ~Copyable {
    private let frame = Atomic<Int64>(0)
    private let rolling = Atomic<Bool>(false)
    private let tempo = Atomic<UInt64>(0)
    private let beatsPerBar = Atomic<UInt64>(0)
    private let beatUnit = Atomic<Int32>(4)
    private let sampleRate = Atomic<UInt64>(0)
    private let anchorFrame = Atomic<Int64>(0)
    private let anchorBeat = Atomic<UInt64>(0)

    @inline(__always)
    func store(_ time: TimeContext) {
        frame.store(time.transportFrame, ordering: .relaxed)
        rolling.store(time.isRolling, ordering: .relaxed)
        tempo.store(time.tempo.bitPattern, ordering: .relaxed)
        beatsPerBar.store(time.beatsPerBar.bitPattern, ordering: .relaxed)
        beatUnit.store(time.beatUnit, ordering: .relaxed)
        sampleRate.store(time.sampleRate.bitPattern, ordering: .relaxed)
        anchorFrame.store(time.anchorFrame, ordering: .relaxed)
        anchorBeat.store(time.anchorBeat.bitPattern, ordering: .releasing)
    }

    func load() -> TimeContext {
        let anchor = Double(bitPattern: anchorBeat.load(ordering: .acquiring))
        var time = TimeContext(
            sampleRate: Double(bitPattern: sampleRate.load(ordering: .relaxed)), isRolling: rolling.load(ordering: .relaxed),
            transportFrame: frame.load(ordering: .relaxed), tempo: Double(bitPattern: tempo.load(ordering: .relaxed)),
            beatsPerBar: Double(bitPattern: beatsPerBar.load(ordering: .relaxed)), beatUnit: beatUnit.load(ordering: .relaxed))
        time.anchorFrame = anchorFrame.load(ordering: .relaxed)
        time.anchorBeat = anchor
        time.updateMusicalPosition()
        return time
    }
}
