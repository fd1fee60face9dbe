import Synchronization

/// A fixed-capacity, lock-free single-producer single-consumer ring of plain values:
/// how messages cross between the audio thread and the control side.
///
/// Exactly one thread pushes and exactly one thread pops. A full ring refuses a push
/// (returns false) and never blocks.
public final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    public let capacity: Int
    private let mask: Int
    private let slots: UnsafeMutablePointer<Element>
    // Monotonic counters; the slot is the counter masked by capacity.
    private let head = Atomic<Int>(0)  // next slot to read; written by the consumer
    private let tail = Atomic<Int>(0)  // next slot to write; written by the producer
    private let refused = Atomic<Int>(0)

    /// `capacity` is rounded up to a power of two.
    public init(capacity: Int) {
        var size = 1
        while size < max(2, capacity) { size <<= 1 }
        self.capacity = size
        mask = size - 1
        slots = .allocate(capacity: size)
    }

    deinit { slots.deallocate() }

    /// Thread: the producer.
    @inline(__always)
    public func push(_ value: Element) -> Bool {
        let tailValue = tail.load(ordering: .relaxed)
        if tailValue - head.load(ordering: .acquiring) >= capacity {
            refused.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        (slots + (tailValue & mask)).initialize(to: value)
        tail.store(tailValue + 1, ordering: .releasing)
        return true
    }

    /// Thread: the consumer.
    @inline(__always)
    public func pop() -> Element? {
        let headValue = head.load(ordering: .relaxed)
        if headValue == tail.load(ordering: .acquiring) { return nil }
        let value = slots[headValue & mask]
        head.store(headValue + 1, ordering: .releasing)
        return value
    }

    /// How many values wait. Approximate while the other side is active. Thread: any.
    public var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }

    /// Free slots for the producer. Thread: the producer.
    public var freeCount: Int { capacity - count }

    /// How many pushes a full ring refused, so a consumer can report what was lost.
    /// Thread: any.
    public var refusedCount: Int { refused.load(ordering: .relaxed) }
}
