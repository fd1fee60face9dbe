/// Owns one kernel's memory on the control side: allocated when the unit initializes,
/// freed when the unit lets go of it (after the programs that used it were retired).
///
/// Thread: control. `pointer` may be used on the control side while no program runs the
/// kernel (to take parameter changes before rendering starts).
public final class KernelStorage<Kernel>: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<Kernel>
    public let kernel: RenderKernel
    /// The kernel and the buffers and tables it was made with, freed together.
    private let memory = Arena()

    public convenience init(_ initial: Kernel, render: KernelRenderFunction, reset: KernelResetFunction) {
        self.init(render: render, reset: reset) { _ in initial }
    }

    /// A kernel `make` builds with its buffers and tables taken from `memory`, which
    /// the storage owns: they go when the storage goes, with nothing to free by hand.
    public init(render: KernelRenderFunction, reset: KernelResetFunction, make: (_ memory: Arena) -> Kernel) {
        pointer = memory.place(make(memory))
        kernel = RenderKernel(state: UnsafeMutableRawPointer(pointer), render: render, reset: reset)
    }

    deinit {
        pointer.deinitialize(count: 1)
    }
}

/// What `AudioUnitBase` holds of a unit's kernel storage, whatever the kernel's type: the
/// unit renders, resets and lets go of its kernel with no code of its own.
public protocol KernelOwning: AnyObject, Sendable {
    var kernel: RenderKernel { get }
}

/// A storage whose kernel takes parameter changes, so the unit needs no code for them.
public protocol UnitKernelOwning: KernelOwning {
    /// Hands the kernel a parameter change. Thread: audio while rendering, else control.
    func setKernelParameter(index: Int, value: Float, rampFrames: Int)
}

extension KernelStorage: KernelOwning {}

extension KernelStorage: UnitKernelOwning where Kernel: UnitKernel {
    public func setKernelParameter(index: Int, value: Float, rampFrames: Int) {
        pointer.pointee.setParameter(index: index, value: value, rampFrames: rampFrames)
    }
}
