import Synchronization

/// A fixed-capacity, lock-free single-producer single-consumer ring of plain values:
/// how messages cross between the audio thread and the control side.
///
/// Exactly one thread pushes and exactly one thread pops. A full ring refuses a push
/// (returns false) and never blocks. The object owns the memory; the audio thread uses
/// its `end`, a plain view with no reference to the object.
public final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    /// Either end of the ring, as plain pointers. Valid while the ring lives.
    public let end: SPSCRingEnd<Element>
    /// The slots and the counters, in one block.
    private let memory: Arena

    /// `capacity` is rounded up to a power of two.
    public init(capacity: Int) {
        var size = 1
        while size < max(2, capacity) { size <<= 1 }
        memory = Arena(firstBlock: size * MemoryLayout<Element>.stride + 2 * Arena.alignment)
        end = SPSCRingEnd(slots: memory.take(size), counters: memory.takeAtomics(3, initial: 0), capacity: size)
    }

    public var capacity: Int { end.capacity }

    /// Thread: the producer.
    @inline(__always)
    public func push(_ value: Element) -> Bool { end.push(value) }

    /// Thread: the consumer.
    @inline(__always)
    public func pop() -> Element? { end.pop() }

    /// How many values wait. Approximate while the other side is active. Thread: any.
    public var count: Int { end.count }

    /// Free slots for the producer. Thread: the producer.
    public var freeCount: Int { end.freeCount }

    /// How many pushes a full ring refused, so a consumer can report what was lost.
    /// Thread: any.
    public var refusedCount: Int { end.refusedCount }
}

/// The working end of an `SPSCRing`: what the audio thread holds.
public struct SPSCRingEnd<Element: BitwiseCopyable>: BitwiseCopyable, @unchecked Sendable {
    @usableFromInline let slots: UnsafeMutablePointer<Element>
    /// Head (next slot to read; the consumer's), tail (next to write; the producer's),
    /// refused pushes. Monotonic; the slot is the counter masked by capacity.
    @usableFromInline let counters: UnsafeMutablePointer<Atomic<Int>>
    public let capacity: Int

    init(slots: UnsafeMutablePointer<Element>, counters: UnsafeMutablePointer<Atomic<Int>>, capacity: Int) {
        self.slots = slots
        self.counters = counters
        self.capacity = capacity
    }

    /// Thread: the producer.
    @inlinable @inline(__always)
    public func push(_ value: Element) -> Bool {
        let tail = counters[1].load(ordering: .relaxed)
        if tail &- counters[0].load(ordering: .acquiring) >= capacity {
            counters[2].wrappingAdd(1, ordering: .relaxed)
            return false
        }
        slots[tail & (capacity &- 1)] = value
        counters[1].store(tail &+ 1, ordering: .releasing)
        return true
    }

    /// Thread: the consumer.
    @inlinable @inline(__always)
    public func pop() -> Element? {
        let head = counters[0].load(ordering: .relaxed)
        if head == counters[1].load(ordering: .acquiring) { return nil }
        let value = slots[head & (capacity &- 1)]
        counters[0].store(head &+ 1, ordering: .releasing)
        return value
    }

    /// Thread: any.
    @inlinable @inline(__always)
    public var count: Int { counters[1].load(ordering: .acquiring) &- counters[0].load(ordering: .acquiring) }

    /// Thread: the producer.
    @inlinable @inline(__always)
    public var freeCount: Int { capacity &- count }

    /// Thread: any.
    public var refusedCount: Int { counters[2].load(ordering: .relaxed) }
}
