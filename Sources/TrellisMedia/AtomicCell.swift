import Synchronization
import TrellisCore

/// An atomic in memory of its own, so a kernel can hold it as a plain pointer. Used as
/// `cell.pointee.load(ordering:)`; it lives in its owner's arena, which goes once no
/// thread uses it any more.
typealias AtomicCell<Value: AtomicRepresentable> = UnsafeMutablePointer<Atomic<Value>>

/// A cell starting at `value`, in `memory`, which frees it. Thread: control.
func makeAtomicCell<Value: AtomicRepresentable>(_ value: Value, in memory: Arena) -> AtomicCell<Value> {
    memory.takeAtomics(1, initial: value)
}
