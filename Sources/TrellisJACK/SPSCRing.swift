import Synchronization

/// A fixed-capacity, lock-free ring of plain values between exactly one producer thread
/// and one consumer thread. A full ring refuses the value and counts it; it never blocks
/// or grows, so the audio thread may push.
///
/// TrellisEngine has its own ring of the same design; the two can merge into TrellisCore.
/// Internal so that a module importing both sees no clash.
final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Element>
    /// Next slot the producer writes; only the producer stores it.
    private let head = Atomic<Int>(0)
    /// Next slot the consumer reads; only the consumer stores it.
    private let tail = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)

    /// A ring holding at least `minimumCapacity` values (rounded up to a power of two).
    /// Thread: control.
    init(minimumCapacity: Int) {
        precondition(minimumCapacity > 0, "SPSCRing needs a positive capacity")
        var size = 1
        while size < minimumCapacity { size <<= 1 }
        capacity = size
        mask = size - 1
        storage = .allocate(capacity: size)
    }

    deinit { storage.deallocate() }

    /// Appends `value`; returns false (and counts the loss) when the ring is full.
    /// Thread: the one producer.
    @inline(__always)
    @discardableResult
    func push(_ value: Element) -> Bool {
        let write = head.load(ordering: .relaxed)
        if write - tail.load(ordering: .acquiring) >= capacity {
            refused.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        (storage + (write & mask)).initialize(to: value)
        head.store(write + 1, ordering: .releasing)
        return true
    }

    /// Removes and returns the oldest value, or nil when the ring is empty.
    /// Thread: the one consumer.
    @inline(__always)
    func pop() -> Element? {
        let read = tail.load(ordering: .relaxed)
        if read == head.load(ordering: .acquiring) { return nil }
        let value = storage[read & mask]
        tail.store(read + 1, ordering: .releasing)
        return value
    }

    /// How many values were refused because the ring was full. Thread: any.
    var refusedCount: Int { refused.load(ordering: .relaxed) }
}
