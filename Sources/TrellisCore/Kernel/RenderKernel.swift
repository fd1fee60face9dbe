import Synchronization

/// A kernel's render entry: its state and the context of one call, as raw pointers, so
/// the program can call any kernel, built in or hosted, without a class or existential.
/// Returns a `RenderStatus` raw value.
public typealias KernelRenderFunction = @convention(c) (_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8

/// A kernel's reset entry: clears filter and delay state.
public typealias KernelResetFunction = @convention(c) (_ state: UnsafeMutableRawPointer) -> Void

/// The real-time half of a unit, as the compiled program holds it: plain memory and two
/// entry points. The unit (the control object) owns the memory, makes it in `initialize`
/// and frees it only after every program that uses it has been retired.
///
/// What a kernel may do: read its inputs, write every frame of its outputs, take the
/// events of its cycle, read the host's time. What it may not: allocate, free, lock,
/// block, log, do I/O, or touch a class reference. Entry points carry `@_noAllocation`
/// and `@_noLocks`, so the compiler checks them (see docs/render-contract.md).
public struct RenderKernel: BitwiseCopyable, @unchecked Sendable {
    public let state: UnsafeMutableRawPointer
    public let renderFunction: KernelRenderFunction
    public let resetFunction: KernelResetFunction

    public init(state: UnsafeMutableRawPointer, render: KernelRenderFunction, reset: KernelResetFunction) {
        self.state = state
        renderFunction = render
        resetFunction = reset
    }

    /// Thread: audio.
    @inlinable @inline(__always)
    public func render(_ context: UnsafePointer<RenderContext>) -> RenderStatus {
        RenderStatus(rawValue: renderFunction(state, UnsafeRawPointer(context))) ?? .failed
    }

    /// Thread: audio while rendering, else control.
    @inlinable @inline(__always)
    public func reset() { resetFunction(state) }
}

/// The usual shape of a built-in kernel: DSP state in a plain struct, parameter changes
/// taken between segments, frames processed in segments with no event inside.
/// `renderInSegments` does the splitting, so a kernel lands every change on its frame.
public protocol UnitKernel {
    /// Processes `context.frameCount` frames; no event falls inside them. Thread: audio.
    mutating func process(_ context: RenderContext) -> RenderStatus
    /// Takes a parameter change from the current frame on, ramped over `rampFrames`.
    /// Thread: audio while rendering, else control.
    mutating func setParameter(index: Int, value: Float, rampFrames: Int)
    /// Takes a MIDI message at the current frame. Thread: audio.
    mutating func receiveMIDI(_ event: RenderEvent)
    /// Clears filter and delay state. Thread: audio while rendering, else control.
    mutating func reset()
}

extension UnitKernel {
    public mutating func setParameter(index: Int, value: Float, rampFrames: Int) {}
    public mutating func receiveMIDI(_ event: RenderEvent) {}
    public mutating func reset() {}

    /// Renders one call: events are applied in time order, and the frames between them
    /// processed in segments whose buses start at the segment's frame. Thread: audio.
    @inlinable @inline(__always)
    public static func renderInSegments(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        let kernel = state.assumingMemoryBound(to: Self.self)
        let whole = context.assumingMemoryBound(to: RenderContext.self).pointee
        let events = whole.events
        if events.count == 0 { return kernel.pointee.process(whole).rawValue }
        var position = 0, next = 0
        while position < whole.frameCount {
            while next < events.count && Int(events[next].offset) <= position {
                kernel.pointee.take(events[next])
                next &+= 1
            }
            let stop = next < events.count ? min(whole.frameCount, Int(events[next].offset)) : whole.frameCount
            let status = kernel.pointee.process(whole.segment(from: position, to: stop))
            if status != .ok { return status.rawValue }
            position = stop
        }
        while next < events.count {
            kernel.pointee.take(events[next])
            next &+= 1
        }
        return RenderStatus.ok.rawValue
    }

    /// Resets the kernel at `state`. Thread: audio while rendering, else control.
    @inlinable @inline(__always)
    public static func reset(_ state: UnsafeMutableRawPointer) {
        state.assumingMemoryBound(to: Self.self).pointee.reset()
    }

    @inlinable @inline(__always)
    mutating func take(_ event: RenderEvent) {
        switch event.kind {
        case .parameter: setParameter(index: Int(event.index), value: event.value, rampFrames: Int(event.rampFrames))
        case .midi: receiveMIDI(event)
        }
    }
}

/// A kernel that takes a whole call, events included, in one function: a hosted plugin,
/// or a kernel that places its events itself. Its entry's body is `renderCall`.
public protocol CallKernel {
    /// Renders `context.frameCount` frames and takes the call's events. Thread: audio.
    mutating func render(_ context: RenderContext) -> RenderStatus
}

extension CallKernel {
    /// Renders one call through the kernel at `state`. Thread: audio.
    @inlinable @inline(__always)
    public static func renderCall(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        state.assumingMemoryBound(to: Self.self).pointee.render(context.assumingMemoryBound(to: RenderContext.self).pointee).rawValue
    }
}

/// What a compiled program holds of a unit: plain pointers, never the unit itself.
public struct UnitRealtime: BitwiseCopyable, @unchecked Sendable {
    public let unitID: UInt64
    public let kernel: RenderKernel
    /// The unit's parameter values, written when an event takes effect and by kernels
    /// that publish meters.
    public let values: ParameterValues
    public let bypass: UnsafePointer<Atomic<Bool>>

    public init(unitID: UInt64, kernel: RenderKernel, values: ParameterValues, bypass: UnsafePointer<Atomic<Bool>>) {
        self.unitID = unitID
        self.kernel = kernel
        self.values = values
        self.bypass = bypass
    }

    /// Thread: any.
    @inline(__always)
    public var isBypassed: Bool { bypass.pointee.load(ordering: .relaxed) }
}
