import Synchronization
import TrellisCore

/// A single-producer single-consumer ring of variable-size messages (a 4-byte length,
/// then the bytes): how LV2 worker requests and responses and audio-thread log lines
/// travel between threads. Never allocates after init; a full ring refuses a message.
/// The object owns the memory; the audio thread uses its `end`, a plain view.
///
/// Thread: one producer calls `write`, one consumer calls `read`.
final class ByteRing: @unchecked Sendable {
    let end: ByteRingEnd
    private let memory = Arena()

    init(capacity: Int) {
        end = ByteRingEnd(bytes: memory.takeBytes(capacity), counters: memory.takeAtomics(2, initial: 0), capacity: capacity)
    }

    /// Thread: the producer.
    func write(_ data: UnsafeRawPointer?, count: Int) -> Bool { end.write(data, count: count) }

    /// Queues one message of `header` then `count` bytes. Thread: the producer.
    func write(header: UInt8, _ data: UnsafeRawPointer?, count: Int) -> Bool {
        end.write(header: header, data, count: count)
    }

    /// Whether a message waits. Thread: any (a snapshot).
    var hasMessages: Bool {
        end.counters[0].load(ordering: .acquiring) != end.counters[1].load(ordering: .acquiring)
    }

    /// Thread: the consumer.
    func read(into buffer: UnsafeMutableRawPointer, capacity bufferCapacity: Int) -> Int? {
        end.read(into: buffer, capacity: bufferCapacity)
    }
}

/// Either end of a `ByteRing`, as plain pointers. Valid while the ring lives.
struct ByteRingEnd: BitwiseCopyable, @unchecked Sendable {
    let bytes: UnsafeMutableRawPointer
    /// Head (the consumer's), tail (the producer's).
    let counters: UnsafeMutablePointer<Atomic<Int>>
    let capacity: Int

    /// Queues one message; false when there is no room. Thread: the producer.
    @inline(__always)
    func write(_ data: UnsafeRawPointer?, count: Int) -> Bool { write(header: nil, data, count: count) }

    /// Queues one message made of an optional one-byte `header` and `count` bytes of
    /// `data`; false when there is no room. Thread: the producer.
    @inline(__always)
    func write(header: UInt8?, _ data: UnsafeRawPointer?, count: Int) -> Bool {
        let headerSize = header == nil ? 0 : 1
        let write = counters[1].load(ordering: .relaxed)
        let used = write &- counters[0].load(ordering: .acquiring)
        guard count >= 0, used &+ 4 &+ headerSize &+ count <= capacity else { return false }
        var length = UInt32(count &+ headerSize)
        withUnsafeBytes(of: &length) { copyIn($0.baseAddress.unsafelyUnwrapped, count: 4, at: write) }
        if var first = header {
            withUnsafeBytes(of: &first) { copyIn($0.baseAddress.unsafelyUnwrapped, count: 1, at: write &+ 4) }
        }
        if let data, count > 0 { copyIn(data, count: count, at: write &+ 4 &+ headerSize) }
        counters[1].store(write &+ 4 &+ headerSize &+ count, ordering: .releasing)
        return true
    }

    /// Takes the next message into `buffer` and returns its size, or nil when the ring
    /// is empty. A message larger than `capacity` bytes is dropped and reported as 0
    /// bytes. Thread: the consumer.
    @inline(__always)
    func read(into buffer: UnsafeMutableRawPointer, capacity bufferCapacity: Int) -> Int? {
        let read = counters[0].load(ordering: .relaxed)
        guard read != counters[1].load(ordering: .acquiring) else { return nil }
        var length: UInt32 = 0
        withUnsafeMutableBytes(of: &length) { copyOut($0.baseAddress.unsafelyUnwrapped, count: 4, at: read) }
        let count = Int(length)
        let delivered = count <= bufferCapacity ? count : 0
        if delivered > 0 { copyOut(buffer, count: delivered, at: read &+ 4) }
        counters[0].store(read &+ 4 &+ count, ordering: .releasing)
        return delivered
    }

    @inline(__always)
    private func copyIn(_ source: UnsafeRawPointer, count: Int, at position: Int) {
        let start = position % capacity
        let first = min(count, capacity &- start)
        copyBytes(from: source, to: bytes + start, count: first)
        if first < count { copyBytes(from: source + first, to: bytes, count: count &- first) }
    }

    @inline(__always)
    private func copyOut(_ target: UnsafeMutableRawPointer, count: Int, at position: Int) {
        let start = position % capacity
        let first = min(count, capacity &- start)
        copyBytes(from: bytes + start, to: target, count: first)
        if first < count { copyBytes(from: bytes, to: target + first, count: count &- first) }
    }
}

/// A byte loop the optimizer turns into a block copy; `copyMemory` is not provably free
/// of runtime calls, and the real-time checker refuses it. Thread: any.
@inline(__always)
func copyBytes(from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, count: Int) {
    var index = 0
    while index < count {
        target.storeBytes(of: source.load(fromByteOffset: index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
        index &+= 1
    }
}
