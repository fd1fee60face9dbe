import Synchronization

/// A fixed array of floats that one thread may write while others read, without
/// locks: parameter values and meters shared between the audio and control threads.
public final class AtomicFloats: @unchecked Sendable {
    public let count: Int
    private let storage: UnsafeMutablePointer<Atomic<UInt32>>
    private let memory: Arena

    public init(count: Int, initialValue: Float = 0) {
        self.count = count
        memory = Arena(firstBlock: count * 4)
        storage = memory.takeAtomics(count, initial: initialValue.bitPattern)
    }

    /// Thread: any.
    @inline(__always)
    public subscript(index: Int) -> Float {
        get { Float(bitPattern: storage[index].load(ordering: .relaxed)) }
        set { storage[index].store(newValue.bitPattern, ordering: .relaxed) }
    }

    /// A view of the values that carries no reference, for the audio thread; valid while
    /// this object lives. Thread: any.
    public var view: ParameterValues { ParameterValues(storage: storage, count: count) }
}

/// A borrowed view of an `AtomicFloats`: what kernels and programs hold instead of the
/// object. Thread: any.
public struct ParameterValues: BitwiseCopyable, @unchecked Sendable {
    @usableFromInline let storage: UnsafeMutablePointer<Atomic<UInt32>>
    public let count: Int

    init(storage: UnsafeMutablePointer<Atomic<UInt32>>, count: Int) {
        self.storage = storage
        self.count = count
    }

    @inlinable @inline(__always)
    public subscript(index: Int) -> Float {
        get { Float(bitPattern: storage[index].load(ordering: .relaxed)) }
        nonmutating set { storage[index].store(newValue.bitPattern, ordering: .relaxed) }
    }
}
