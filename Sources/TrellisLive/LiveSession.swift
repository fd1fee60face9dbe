import Foundation
import TrellisCore
import TrellisGraph
import TrellisJACK
import TrellisSession

/// A session running live: its graph pulled by a JACK head node whose ports, names and
/// connections come from the session's `jack:` section.
///
/// The graph is edited by the control side and re-prepared by JACK's notification
/// thread (period and rate changes); `withGraph` serializes the two, so every control
/// client (the command line, the control protocol) edits through it.
/// Thread: control.
public final class LiveSession: @unchecked Sendable {
    public private(set) var session: LoadedSession
    public let configuration: JACKConfiguration
    /// The graph on its JACK head node.
    public let driver: GraphDriver<JACKHeadNode>

    public var head: JACKHeadNode { driver.backend }

    /// Builds the head node for `session`. `clientName` overrides the session's
    /// client name; `serverName` picks a server other than the default; `cpuLatency`
    /// overrides the session's `jack: cpu-latency:`.
    public init(
        session: LoadedSession, serverName: String? = nil, clientName: String? = nil, cpuLatency: CPULatencyPolicy? = nil
    ) throws(LiveError) {
        self.session = session
        let jack = session.jack
        var configuration = JACKConfiguration(
            clientName: clientName ?? jack?.client ?? "trellis",
            serverName: serverName,
            inputChannels: session.graph.plan?.inputChannelCount ?? 0,
            outputChannels: session.graph.plan?.outputChannelCount ?? 2)
        configuration.inputNames = jack?.inputs ?? []
        configuration.outputNames = jack?.outputs ?? []
        configuration.midiInputs = jack?.midiInputs.count ?? 0
        configuration.midiInputNames = jack?.midiInputs ?? []
        configuration.midiOutputs = jack?.midiOutputs.count ?? 0
        configuration.midiOutputNames = jack?.midiOutputs ?? []
        if let jack, !jack.inputs.isEmpty { configuration.inputChannels = jack.inputs.count }
        if let jack, !jack.outputs.isEmpty { configuration.outputChannels = jack.outputs.count }
        configuration.connections = (jack?.connect ?? []).map { JACKConnectionRule(ports: $0.ours, peers: $0.theirs) }
        configuration.cpuLatency = cpuLatency ?? jack?.cpuLatency.flatMap(CPULatencyPolicy.init(rawValue:)) ?? .auto
        switch session.loadedDocument.transport?.source {
        case .jack: configuration.transport = .follow
        case .jackMaster: configuration.transport = .master
        case .internal, nil: configuration.transport = .none
        }
        self.configuration = configuration
        do {
            driver = try GraphDriver(graph: session.graph) { source, prepare throws(JACKError) in
                try JACKHeadNode(configuration: configuration, source: source, prepare: prepare)
            }
        } catch { throw .jack(error) }
    }

    /// Joins the server, prepares the graph for its period and rate, activates and
    /// makes the session's connections. Failed connections come back as warnings.
    /// Parameter changes then travel to the audio thread (ramped) instead of racing it,
    /// and a unit's latency that changes is compensated anew (`followLatencyChanges`).
    /// While the program runs isolated plugins, idle CPUs are kept responsive
    /// (`jack: cpu-latency:`, `CPULatencyPolicy`).
    public func start() throws(LiveError) {
        do { try driver.start() } catch { throw .jack(error) }
        let head = head
        driver.followLatencyChanges { graph in head.programRunsIsolatedUnits(graph.hasIsolatedUnits) }
    }

    /// Deactivates and closes the client; the graph stays as it is.
    public func stop() { driver.stop() }

    /// Runs `body` with the graph while no period or rate change re-prepares it.
    public func withGraph<T, E: Error>(_ body: (Graph) throws(E) -> T) throws(E) -> T {
        try driver.withGraph(body)
    }

    /// Swaps in another session built on this one's engine (see `Graph(engine:)`): its
    /// first program replaces the running one at a cycle boundary.
    public func replace(with next: LoadedSession) throws(LiveError) {
        do { try driver.replace(with: next.graph) } catch {
            switch error {
            case .graph(let error): throw .graph(error)
            case .notOnThisEngine: throw .notOnThisEngine
            }
        }
        session = next
    }

    public func status() -> JACKStatus { head.status() }

    @discardableResult
    public func addListener(_ listener: @escaping @Sendable (JACKEvent) -> Void) -> Int {
        head.addListener(listener)
    }
}

public enum LiveError: Error, CustomStringConvertible {
    case jack(JACKError)
    case graph(GraphError)
    case notOnThisEngine

    public var description: String {
        switch self {
        case .jack(let error): return "\(error)"
        case .graph(let error): return "\(error)"
        case .notOnThisEngine: return "the new session must be built on the running session's engine"
        }
    }
}
