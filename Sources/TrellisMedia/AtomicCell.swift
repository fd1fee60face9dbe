import Synchronization

/// An atomic in memory of its own, so a kernel can hold it as a plain pointer. Used as
/// `cell.pointee.load(ordering:)`; the control object that makes it frees it once no
/// thread uses it any more.
typealias AtomicCell<Value: AtomicRepresentable> = UnsafeMutablePointer<Atomic<Value>>

/// Thread: control.
func makeAtomicCell<Value: AtomicRepresentable>(_ value: Value) -> AtomicCell<Value> {
    let cell = AtomicCell<Value>.allocate(capacity: 1)
    cell.initialize(to: Atomic(value))
    return cell
}

/// Thread: control, once nobody uses the cell.
func freeAtomicCell<Value: AtomicRepresentable>(_ cell: AtomicCell<Value>) {
    cell.deinitialize(count: 1)
    cell.deallocate()
}
