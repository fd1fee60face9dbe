import Glibc
import Synchronization

/// Lets the control side wait out a render call that may have read a flag before the
/// control side changed it, without the render side ever waiting.
///
/// The render side brackets its work with `enter()` and `leave()` and reads its flags
/// after `enter()`, sequentially consistent; the control side stores its flags
/// sequentially consistent, then calls `waitForRenderToLeave()`. Afterwards every render
/// call sees the new flags (Dekker's argument: either the render's enter comes first and
/// the control side waits for it, or the render's flag load sees the store).
///
/// A plain pointer, so kernels hold it; its counter lives in memory its owner frees.
struct RenderFence: BitwiseCopyable, @unchecked Sendable {
    /// Odd while a render call is inside.
    private let counter: AtomicCell<UInt64>

    /// A fence whose counter lives at `cell`, in memory its owner frees. Thread: control.
    init(at cell: AtomicCell<UInt64>) {
        cell.initialize(to: Atomic(0))
        counter = cell
    }

    /// Thread: audio.
    @inline(__always)
    func enter() { counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent) }

    /// Thread: audio.
    @inline(__always)
    func leave() { counter.pointee.wrappingAdd(1, ordering: .releasing) }

    /// Returns once no render call that began before this call is still inside; at most
    /// one render call long. Thread: control (never audio).
    func waitForRenderToLeave() {
        let seen = counter.pointee.load(ordering: .sequentiallyConsistent)
        guard seen & 1 == 1 else { return }
        while counter.pointee.load(ordering: .acquiring) == seen { sched_yield() }
    }
}
