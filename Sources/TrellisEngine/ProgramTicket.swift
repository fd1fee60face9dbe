/// What `RenderEngine.publish` returns: the program's place in the order of publishing,
/// to wait on until the audio thread has adopted it (or a program published later).
///
/// Once adopted, the audio thread runs no program published before it again, so what
/// only those programs used may be uninitialized or freed. Thread: any but audio.
public struct ProgramTicket: Sendable {
    public let engine: RenderEngine
    /// 1 for the engine's first publish, then one more for each.
    public let generation: UInt64

    /// True once the audio thread (or a waiter on its behalf) has adopted this program
    /// or a later one. Thread: any.
    public var isAdopted: Bool { engine.adoptedGeneration >= generation }

    /// Waits until the program is adopted or `timeout` passes; true when adopted. While
    /// no backend cycles (the engine is not rendering, or no cycle has started for
    /// `engine.quietBeforeAdopting`, as during a JACK period change), the waiter adopts
    /// it itself between cycles, so waiting never hangs on a backend that stopped.
    /// Thread: any but audio.
    @discardableResult
    public func wait(timeout: Duration) -> Bool {
        engine.waitUntilAdopted(generation, deadline: ContinuousClock.now.advanced(by: timeout))
    }

    /// Waits until the program is adopted; returns at once when no backend cycles (see
    /// `wait(timeout:)`). Only a cycle that never ends keeps it waiting. Thread: any but
    /// audio.
    public func wait() {
        _ = engine.waitUntilAdopted(generation, deadline: nil)
    }
}

/// Names a notice listener, to remove it.
public struct NoticeListenerToken: Hashable, Sendable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
}
