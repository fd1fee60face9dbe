import Synchronization
import TrellisCore
import TrellisGraph
import TrellisSession

/// What the control server drives: a loaded session (its graph is the live one), the
/// registry units come from, and the live backend when the session runs live.
/// `LiveSession` (what `trellis run` runs, conformed in the CLI) and `ControlledSession` are two.
///
/// Thread: the dispatcher calls every member from its own queue, one call at a time.
public protocol ControlTarget: AnyObject, Sendable {
    var session: LoadedSession { get }
    var registry: ComponentRegistry { get }
    var liveBackend: (any LiveBackend)? { get }
    /// Runs `body` while no backend re-prepares the graph (a JACK period or rate change).
    func withGraphLocked(_ body: () -> Void)
    /// Makes `session` (loaded on the running engine) the current one; the previous
    /// graph is let go. Not called inside `withGraphLocked`.
    func replaceSession(with session: LoadedSession) throws(ControlError)
}

/// A plain `ControlTarget`: a session, a registry and an optional live backend. The
/// backend's prepare hook should call `prepare(frames:sampleRate:)` here, which follows a
/// `load` to the new graph.
public final class ControlledSession: ControlTarget, @unchecked Sendable {
    private let current: Mutex<LoadedSession>
    public let registry: ComponentRegistry
    private let backendSlot = Mutex<(any LiveBackend)?>(nil)
    private let graphLock = Mutex(())

    /// Thread: control.
    public init(session: LoadedSession, registry: ComponentRegistry, backend: (any LiveBackend)? = nil) {
        current = Mutex(session)
        self.registry = registry
        backendSlot.withLock { $0 = backend }
    }

    public var session: LoadedSession { current.withLock { $0 } }

    public var liveBackend: (any LiveBackend)? {
        get { backendSlot.withLock { $0 } }
        set { backendSlot.withLock { $0 = newValue } }
    }

    public func withGraphLocked(_ body: () -> Void) {
        graphLock.withLock { _ in body() }
    }

    public func replaceSession(with session: LoadedSession) throws(ControlError) {
        graphLock.withLock { _ in current.withLock { $0 = session } }
    }

    /// Readies the current graph for a backend's period and rate. Thread: the backend's
    /// prepare hook (control or JACK's notification thread, never audio).
    public func prepare(frames: Int, sampleRate: Double) throws(GraphError) {
        try graphLock.withLock { _ throws(GraphError) in try session.graph.prepare(frames: frames, sampleRate: sampleRate) }
    }
}
