import TrellisCore

/// Watches a bus as the program renders: taps, meters, recorders of a node's output.
/// The compiler runs the observer right after the bus is produced, before anything
/// reads it, so an observer sees every frame in order.
public protocol BusObserver: AnyObject, Sendable {
    /// The observer's real-time half, which the program calls; valid while the observer
    /// lives. Thread: control.
    var observerKernel: ObserverKernel { get }
}

/// What an observer is shown in one call. Thread: audio.
public struct ObservedSlice: BitwiseCopyable, @unchecked Sendable {
    public var bus: AudioBuffers
    public var frameCount: Int
    public var timeStamp: AudioTimeStamp

    @inlinable
    public init(bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        self.bus = bus
        self.frameCount = frameCount
        self.timeStamp = timeStamp
    }
}

/// An observer's kernel: it takes the watched bus slice by slice. Its entry's body is
/// `observeSlice`.
public protocol SliceObserving {
    /// Takes one slice of the bus. Thread: audio.
    mutating func observe(_ slice: ObservedSlice)
}

extension SliceObserving {
    /// Shows the kernel at `state` one slice. Thread: audio.
    @inlinable @inline(__always)
    public static func observeSlice(_ state: UnsafeMutableRawPointer, _ slice: UnsafeRawPointer) {
        state.assumingMemoryBound(to: Self.self).pointee.observe(slice.assumingMemoryBound(to: ObservedSlice.self).pointee)
    }
}

/// An observer's entry: its state and the slice, as raw pointers.
public typealias ObserveFunction = @convention(c) (_ state: UnsafeMutableRawPointer, _ slice: UnsafeRawPointer) -> Void

/// The real-time half of an observer, as the program holds it: plain memory and one
/// entry point, checked like a unit's kernel. The observer owns the memory.
public struct ObserverKernel: BitwiseCopyable, @unchecked Sendable {
    public let state: UnsafeMutableRawPointer
    public let observeFunction: ObserveFunction

    public init(state: UnsafeMutableRawPointer, observe: ObserveFunction) {
        self.state = state
        observeFunction = observe
    }

    /// Thread: audio.
    @inline(__always)
    func observe(_ slice: UnsafePointer<ObservedSlice>) {
        // The fence: a call through a function pointer; every entry that can stand here
        // is checked on its own.
        _unsafePerformance { observeFunction(state, UnsafeRawPointer(slice)) }
    }
}

