import Synchronization
import TrellisCore

/// What travels with one slot of a `FrameRing`; each user fills the fields it needs.
struct FrameSlotHeader: BitwiseCopyable {
    /// Frames of audio in the slot.
    var frameCount = 0
    /// Seek generation the audio belongs to (player).
    var generation: UInt64 = 0
    /// Where the first frame sits in the source, in output-rate frames (player).
    var position: Int64 = 0
    /// Source frames (in output-rate frames) each frame of the slot stands for: the
    /// player's rate (player).
    var speed: Double = 1
    /// The graph time of the first frame (recorder, tap).
    var timeStamp = AudioTimeStamp.zero
    /// Frames lost just before this slot (tap).
    var dropped = 0
    /// The stream ends after this slot (player).
    var isEnd = false

    /// The source position `offset` frames into the slot (player). Thread: any.
    @inline(__always)
    func position(at offset: Int) -> Int64 {
        speed == 1 ? position &+ Int64(offset) : position &+ Int64(Double(offset) * speed + 0.5)
    }
}

/// A lock-free single-producer single-consumer ring of fixed slots of audio, each with
/// non-interleaved channel planes and a header, allocated once.
///
/// The producer fills the slot `writableSlot()` names and publishes it with `commit()`;
/// the consumer reads `readableSlot()` in place and hands it back with `release()`. So
/// audio crosses between the render thread and a disk or delivery thread without copies
/// into queues and without allocation. A value of raw pointers: copies share the ring,
/// whose memory lives in its owner's arena.
struct FrameRing: @unchecked Sendable, BitwiseCopyable {
    let slotCount: Int
    let frameCapacity: Int
    let channelCount: Int
    private let headers: UnsafeMutablePointer<FrameSlotHeader>
    private let samples: UnsafeMutablePointer<Float>
    private let channelTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    // [0] = head (next slot to read, consumer's), [1] = tail (next to write, producer's).
    private let counters: UnsafeMutablePointer<Atomic<Int>>

    /// A ring in `memory`, which must outlive every use of it. Thread: control.
    init(slotCount: Int, frameCapacity: Int, channelCount: Int, in memory: Arena) {
        precondition(slotCount > 0 && frameCapacity > 0 && channelCount > 0)
        self.slotCount = slotCount
        self.frameCapacity = frameCapacity
        self.channelCount = channelCount
        let stride = (frameCapacity + 15) & ~15
        headers = memory.take(slotCount, repeating: FrameSlotHeader())
        samples = memory.take(slotCount * channelCount * stride, repeating: 0)
        channelTable = memory.take(slotCount * channelCount)
        for index in 0..<(slotCount * channelCount) {
            (channelTable + index).initialize(to: samples + index * stride)
        }
        counters = memory.takeAtomics(2, initial: 0)
    }

    var totalFrameCapacity: Int { slotCount * frameCapacity }

    /// The channel planes of a slot. Thread: whichever side owns the slot.
    @inline(__always)
    func buffers(_ slot: Int) -> AudioBuffers {
        AudioBuffers(channelPointers: UnsafePointer(channelTable + slot * channelCount), channelCount: channelCount)
    }

    /// The header of a slot. Thread: whichever side owns the slot.
    @inline(__always)
    func header(_ slot: Int) -> UnsafeMutablePointer<FrameSlotHeader> { headers + slot }

    // MARK: Producer

    /// The slot to fill next, or nil when the ring is full. Thread: the producer.
    @inline(__always)
    func writableSlot() -> Int? {
        let tail = counters[1].load(ordering: .relaxed)
        if tail - counters[0].load(ordering: .acquiring) >= slotCount { return nil }
        return tail % slotCount
    }

    /// Publishes the slot `writableSlot()` named. Thread: the producer.
    @inline(__always)
    func commit() {
        counters[1].add(1, ordering: .releasing)
    }

    /// Free slots. Thread: the producer (a lower bound for anyone else).
    var freeSlots: Int {
        slotCount - (counters[1].load(ordering: .relaxed) - counters[0].load(ordering: .acquiring))
    }

    // MARK: Consumer

    /// The oldest published slot, or nil when the ring is empty. Thread: the consumer.
    @inline(__always)
    func readableSlot() -> Int? {
        let head = counters[0].load(ordering: .relaxed)
        if head == counters[1].load(ordering: .acquiring) { return nil }
        return head % slotCount
    }

    /// The published slot `offset` places after the oldest, or nil. Thread: the consumer.
    @inline(__always)
    func readableSlot(at offset: Int) -> Int? {
        let head = counters[0].load(ordering: .relaxed)
        if head + offset >= counters[1].load(ordering: .acquiring) { return nil }
        return (head + offset) % slotCount
    }

    /// Hands the oldest slot back to the producer. Thread: the consumer.
    @inline(__always)
    func release() {
        counters[0].add(1, ordering: .releasing)
    }

    /// Published slots waiting. Thread: any (approximate while both sides run).
    var filledSlots: Int {
        counters[1].load(ordering: .acquiring) - counters[0].load(ordering: .acquiring)
    }
}
