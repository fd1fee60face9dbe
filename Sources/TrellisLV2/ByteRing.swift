import Synchronization

/// A single-producer single-consumer ring of variable-size messages (a 4-byte length,
/// then the bytes): how LV2 worker requests and responses and audio-thread log lines
/// travel between threads. Never allocates after init; a full ring refuses a message.
///
/// Thread: one producer calls `write`, one consumer calls `read`.
final class ByteRing: @unchecked Sendable {
    private let bytes: UnsafeMutableRawPointer
    private let capacity: Int
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
        bytes = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { bytes.deallocate() }

    /// Queues one message; false when there is no room. Thread: the producer.
    func write(_ data: UnsafeRawPointer?, count: Int) -> Bool {
        let write = tail.load(ordering: .relaxed)
        let used = write - head.load(ordering: .acquiring)
        guard count >= 0, used + 4 + count <= capacity else { return false }
        var length = UInt32(count)
        withUnsafeBytes(of: &length) { copyIn($0.baseAddress!, count: 4, at: write) }
        if let data, count > 0 { copyIn(data, count: count, at: write + 4) }
        tail.store(write + 4 + count, ordering: .releasing)
        return true
    }

    /// Takes the next message into `buffer` and returns its size, or nil when the ring
    /// is empty. A message larger than `capacity` bytes is dropped and reported as 0
    /// bytes. Thread: the consumer.
    func read(into buffer: UnsafeMutableRawPointer, capacity bufferCapacity: Int) -> Int? {
        let read = head.load(ordering: .relaxed)
        guard read != tail.load(ordering: .acquiring) else { return nil }
        var length: UInt32 = 0
        withUnsafeMutableBytes(of: &length) { copyOut($0.baseAddress!, count: 4, at: read) }
        let count = Int(length)
        let delivered = count <= bufferCapacity ? count : 0
        if delivered > 0 { copyOut(buffer, count: delivered, at: read + 4) }
        head.store(read + 4 + count, ordering: .releasing)
        return delivered
    }

    private func copyIn(_ source: UnsafeRawPointer, count: Int, at position: Int) {
        let start = position % capacity
        let first = min(count, capacity - start)
        (bytes + start).copyMemory(from: source, byteCount: first)
        if first < count { bytes.copyMemory(from: source + first, byteCount: count - first) }
    }

    private func copyOut(_ target: UnsafeMutableRawPointer, count: Int, at position: Int) {
        let start = position % capacity
        let first = min(count, capacity - start)
        target.copyMemory(from: bytes + start, byteCount: first)
        if first < count { (target + first).copyMemory(from: bytes, byteCount: count - first) }
    }
}
