import Synchronization

/// One owner's plain memory: the tables and buffers of a compiled program (or any owner
/// with many), taken in pieces from a few blocks and freed all together, once, when the
/// arena goes. It holds what needs no deinitializing (plain values, atomics of them), so
/// nothing in it is ever deinitialized, and a piece is never freed on its own.
///
/// Thread: pieces are taken on the control side, while the owner is being made; the
/// memory is then the owner's, for whichever thread its contract names.
public final class Arena: @unchecked Sendable {
    /// Every piece starts on a cache line, so two tables never share one.
    public static let alignment = 64

    private var blocks: [UnsafeMutableRawPointer] = []
    private var next: UnsafeMutableRawPointer?
    private var left = 0
    /// The next block's size: it doubles (from 4 KiB unless the owner says less), so a
    /// small owner takes little and a large one few blocks.
    private var blockSize: Int
    /// Bytes taken from the system so far.
    public private(set) var footprint = 0

    /// `firstBlock`: the bytes of the first block, for an owner that knows it needs little.
    public init(firstBlock: Int = 4096) {
        blockSize = max(Self.alignment, firstBlock)
    }

    deinit {
        for block in blocks { block.deallocate() }
    }

    /// Room for `count` values of `T` (at least one), uninitialized.
    public func take<T: BitwiseCopyable>(_ count: Int, of type: T.Type = T.self) -> UnsafeMutablePointer<T> {
        piece(count * MemoryLayout<T>.stride, alignment: MemoryLayout<T>.alignment).bindMemory(to: T.self, capacity: max(1, count))
    }

    /// Room for `byteCount` raw bytes (at least one), aligned to `alignment` (at most a
    /// cache line), uninitialized.
    public func takeBytes(_ byteCount: Int, alignment: Int = 16) -> UnsafeMutableRawPointer {
        piece(byteCount, alignment: alignment)
    }

    /// Room for `count` atomics (at least one), each starting at `value`. An atomic of
    /// a plain value needs no deinitializing either.
    public func takeAtomics<Value: AtomicRepresentable>(_ count: Int, initial value: Value) -> UnsafeMutablePointer<Atomic<Value>> {
        let atomics = piece(count * MemoryLayout<Atomic<Value>>.stride, alignment: MemoryLayout<Atomic<Value>>.alignment)
            .bindMemory(to: Atomic<Value>.self, capacity: max(1, count))
        for index in 0..<max(1, count) { (atomics + index).initialize(to: Atomic(value)) }
        return atomics
    }

    /// A place for one value that cannot be copied but needs no deinitializing either (a
    /// struct of atomics, a state of plain values and atomics); its deinit never runs.
    public func place<T: ~Copyable>(_ value: consuming T) -> UnsafeMutablePointer<T> {
        let place = piece(MemoryLayout<T>.stride, alignment: MemoryLayout<T>.alignment).bindMemory(to: T.self, capacity: 1)
        place.initialize(to: value)
        return place
    }

    private func piece(_ bytes: Int, alignment: Int) -> UnsafeMutableRawPointer {
        precondition(alignment <= Self.alignment, "a piece needs more than a cache line's alignment")
        let size = (max(1, bytes) + Self.alignment - 1) & ~(Self.alignment - 1)
        if size > left {
            let made = max(size, blockSize)
            let block = UnsafeMutableRawPointer.allocate(byteCount: made, alignment: Self.alignment)
            blocks.append(block)
            footprint += made
            blockSize = min(blockSize * 2, 1 << 20)
            next = block
            left = made
        }
        let piece = next.unsafelyUnwrapped
        next = piece + size
        left -= size
        return piece
    }

    /// Room for `count` values of `T`, each `value`.
    public func take<T: BitwiseCopyable>(_ count: Int, repeating value: T) -> UnsafeMutablePointer<T> {
        let piece = take(count, of: T.self)
        piece.initialize(repeating: value, count: count)
        return piece
    }

    /// A copy of `values` (room for one when empty).
    public func copy<T: BitwiseCopyable>(_ values: [T]) -> UnsafeMutablePointer<T> {
        let piece = take(values.count, of: T.self)
        piece.initialize(from: values, count: values.count)
        return piece
    }
}
