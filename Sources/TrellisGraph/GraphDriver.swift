import Synchronization
import TrellisCore
import TrellisEngine

/// A graph run by a backend, live or offline: its engine renders from `start` to
/// `stop`, and the backend's prepare hook re-prepares the graph (for a new period or
/// rate, or an offline render's slices) under the lock that `withGraph` edits take, so
/// a change of settings never meets an edit half way. The graph can be swapped for
/// one built on the same engine (`replace`).
///
/// Thread: control, unless a method says otherwise.
public final class GraphDriver<Backend: AudioBackend>: @unchecked Sendable {
    public let backend: Backend
    /// The engine every graph the driver runs is built on.
    public let engine: RenderEngine
    private let current: GraphSlot

    /// Makes the backend with `make`, which gets the render source (the graph's engine)
    /// and the prepare hook to give it.
    public init<Failure: Error>(
        graph: Graph, backend make: (_ source: any RenderSource, _ prepare: @escaping BackendPrepare) throws(Failure) -> Backend
    ) throws(Failure) {
        let current = GraphSlot(graph)
        self.current = current
        engine = graph.engine
        backend = try make(graph.engine) { settings in
            try current.withLock { graph throws(GraphError) in
                try graph.prepare(frames: settings.maximumFrames, sampleRate: settings.sampleRate)
            }
        }
    }

    /// The graph being run.
    public var graph: Graph { current.withLock { $0 } }

    /// Starts the engine's rendering (its finish step, ramped parameter changes), then
    /// the backend; a backend that fails to start leaves the engine stopped too.
    public func start() throws(Backend.Failure) {
        engine.startRendering()
        do {
            try backend.start()
        } catch {
            engine.stopRendering()
            throw error
        }
    }

    /// Stops the backend, then the engine's rendering (which delivers what is left).
    public func stop() {
        engine.setUpkeep(nil)
        backend.stop()
        engine.stopRendering()
    }

    /// Keeps the graph's paths aligned while it renders live: after each finish pass the
    /// engine's finish thread compiles the graph again when a unit's latency changed
    /// (unless an edit holds the graph then; the next pass tries again), and tells the
    /// engine's notice listeners. It also compiles a one-thread program once the
    /// schedule settled on one thread (`Graph.compileForOneThreadIfSettled`), and
    /// restarts isolated plugins that failed and restart by themselves. An offline render
    /// checks between its slices instead, so that it stays deterministic. `eachPass` then
    /// sees the graph, under its lock (the live head node learns whether the program runs
    /// isolated plugins). Thread: control.
    public func followLatencyChanges(eachPass: (@Sendable (Graph) -> Void)? = nil) {
        engine.setUpkeep { [weak current] in
            current?.withLockIfAvailable { graph in
                defer { eachPass?(graph) }
                return Self.compensate(graph) + Self.settle(graph) + graph.restartFailedUnits()
            } ?? []
        }
    }

    private static func settle(_ graph: Graph) -> [EngineNotice] {
        do {
            try graph.compileForOneThreadIfSettled()
            return []
        } catch {
            return [EngineNotice(kind: .log, unitID: 0, sampleTime: -1, unit: nil, message: .log(.error, "the one-thread program could not be compiled: \(error)"))]
        }
    }

    private static func compensate(_ graph: Graph) -> [EngineNotice] {
        let changes = graph.latencyChanges
        guard !changes.isEmpty else { return [] }
        var failure: UnitMessage?
        do { try graph.compensateLatencyChanges() } catch { failure = .log(.error, "\(error)") }
        return changes.map { change in
            EngineNotice(
                kind: .latencyChanged, unitID: change.unit.unitID, sampleTime: -1,
                unit: UnitLabel(node: change.node, description: change.unit.componentDescription, sampleRate: graph.sampleRate),
                message: failure, latencyChange: (change.from, change.to))
        }
    }

    /// Runs `body` with the graph while no change of settings re-prepares it.
    public func withGraph<T, E: Error>(_ body: (Graph) throws(E) -> T) throws(E) -> T {
        try current.withLock(body)
    }

    /// Swaps in `next`, built on this graph's engine (see `Graph(engine:)`), prepared
    /// for the backend's current settings; its first program replaces the running one
    /// at a cycle boundary.
    public func replace(with next: Graph) throws(GraphDriverError) {
        guard next.engine === engine else { throw .notOnThisEngine }
        let settings = backend.settings ?? BackendSettings(maximumFrames: next.maximumFrames, sampleRate: next.sampleRate)
        try current.replace { () throws(GraphDriverError) -> Graph in
            do throws(GraphError) {
                try next.prepare(frames: settings.maximumFrames, sampleRate: settings.sampleRate)
            } catch {
                throw .graph(error)
            }
            return next
        }
    }
}

public enum GraphDriverError: Error, CustomStringConvertible {
    case graph(GraphError)
    case notOnThisEngine

    public var description: String {
        switch self {
        case .graph(let error): "\(error)"
        case .notOnThisEngine: "the new session must be built on the running session's engine"
        }
    }
}

/// The graph a driver runs, behind the lock its prepare hook and edits share.
private final class GraphSlot: Sendable {
    private let graph: Mutex<Graph>

    init(_ graph: Graph) { self.graph = Mutex(graph) }

    func withLock<T, E: Error>(_ body: (Graph) throws(E) -> T) throws(E) -> T {
        try graph.withLock { (graph: inout Graph) throws(E) -> T in try body(graph) }
    }

    /// nil, without waiting, when another thread holds the graph.
    func withLockIfAvailable<T>(_ body: (Graph) -> T) -> T? {
        graph.withLockIfAvailable { (graph: inout Graph) -> T in body(graph) }
    }

    func replace<E: Error>(_ make: () throws(E) -> Graph) throws(E) {
        try graph.withLock { (graph: inout Graph) throws(E) in graph = try make() }
    }
}
