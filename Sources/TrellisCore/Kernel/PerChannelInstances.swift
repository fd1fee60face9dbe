/// A unit that is one instance per channel of its single input and output bus
/// (multi-mono). In a program the compiler lays the instances out as kernels of their
/// own, each on its channel's buffers, sharing the unit's events and bypass; then runs
/// `afterInstancesKernel`, which publishes what the instances computed as the unit's
/// values. Outside a program the unit renders the instances itself.
public protocol PerChannelInstances: AudioUnit {
    /// The instances' kernels and values, in channel order. Valid from `initialize`
    /// to `uninitialize`. Thread: control.
    var instanceRealtimes: [UnitRealtime] { get }
    /// Runs after the instances, with no buses. Valid while initialized. Thread: control.
    var afterInstancesKernel: RenderKernel? { get }
}
