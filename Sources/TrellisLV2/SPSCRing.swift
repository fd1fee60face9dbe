import Synchronization

/// A fixed-capacity single-producer single-consumer queue of plain values: how
/// messages cross between the audio thread and another thread without locks or
/// allocation. A full ring refuses the value; nothing ever blocks.
///
/// Thread: one producer thread calls `push`, one consumer thread calls `pop`.
final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Element>
    private let mask: Int
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)

    /// Room for at least `minimumCapacity` values (rounded up to a power of two).
    init(minimumCapacity: Int) {
        var capacity = 2
        while capacity < minimumCapacity { capacity <<= 1 }
        storage = .allocate(capacity: capacity)
        mask = capacity - 1
    }

    deinit { storage.deallocate() }

    /// Appends a value; false when the ring is full. Thread: the producer.
    @inline(__always)
    func push(_ value: Element) -> Bool {
        let write = tail.load(ordering: .relaxed)
        guard write - head.load(ordering: .acquiring) <= mask else { return false }
        (storage + (write & mask)).initialize(to: value)
        tail.store(write + 1, ordering: .releasing)
        return true
    }

    /// Takes the oldest value, or nil when empty. Thread: the consumer.
    @inline(__always)
    func pop() -> Element? {
        let read = head.load(ordering: .relaxed)
        guard read != tail.load(ordering: .acquiring) else { return nil }
        let value = storage[read & mask]
        head.store(read + 1, ordering: .releasing)
        return value
    }
}
