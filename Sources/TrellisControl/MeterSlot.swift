import TrellisCore
import TrellisGraph
import TrellisMedia

/// A level meter on one bus of the current graph, installed on first use and again
/// whenever the node it watched is gone (removed, or the graph replaced by `load`).
///
/// Thread: the dispatcher's queue.
final class MeterSlot {
    let bus: BusName
    private var meter: BusMeter?
    private var token: ObserverToken?
    /// The bus's loudness, installed beside the level meter when first asked for.
    private(set) var loudness: BusLoudness?
    /// Whether a watch's frames carry this bus's loudness.
    var withLoudness = false
    private var loudnessToken: ObserverToken?
    private var channelCount = 2
    private weak var graph: Graph?
    private var node: NodeID?
    /// The bus actually metered: a node without outputs (the graph's output) is metered
    /// on the bus that feeds it.
    private(set) var source: (node: String, bus: Int)? {
        didSet {
            name = source.map { "\($0.node).\($0.bus)" } ?? bus.description
            quotedName = MeterFrame.quoted(name)
        }
    }
    /// The graph's revision when the meter was last found in place; nil for a bus inside
    /// a subgraph, whose edits the top graph's revision does not see.
    private var revision: UInt64?

    /// The name readings carry: the bus metered, once the meter is installed.
    private(set) var name: String
    /// `name` as JSON.
    private(set) var quotedName: [UInt8]

    init(bus: BusName) {
        self.bus = bus
        name = bus.description
        quotedName = MeterFrame.quoted(name)
    }

    /// The meter, installed on `graph` if it is not watching there yet. `fresh` says it
    /// was just installed (its first window is empty). A name that is no node's but a
    /// recorder's meters what that recorder records.
    func meter(in graph: Graph, recorders: [String: FileRecorder]) throws(ControlError) -> (meter: any LevelMeter, fresh: Bool) {
        // Thirty frames a second of an unchanged graph look nothing up.
        if let meter, self.graph === graph, let revision, revision == graph.revision { return (meter, false) }
        if bus.bus == nil, let recorder = recorders[bus.node], (try? graph.node(named: bus.node)) == nil {
            return (recorder, false)
        }
        let found: Node
        do { found = try graph.node(atPath: bus.node) } catch { throw ControlError(error) }
        let nested = bus.node.contains("/")
        if let meter, let token, self.graph === graph, node == found.id, nested || graph.hasObserver(token) {
            revision = nested ? nil : graph.revision
            return (meter, false)
        }
        if let token, self.graph === graph { try? graph.removeObserver(token) }
        removeLoudness()
        let (sourceNode, sourceBus) = try resolve(found, in: graph)
        let channels = (try? sourceNode.unit.format(scope: .output, element: sourceBus).channelCount) ?? 2
        channelCount = channels
        let meter = BusMeter(channelCount: channels)
        // A node inside a subgraph is metered by its path; the top graph's by its id.
        let path = sourceNode.id == found.id ? bus.node : sourceNode.name
        do { token = try graph.addObserver(meter, path: path, bus: sourceBus) } catch { throw ControlError(error) }
        self.meter = meter
        self.graph = graph
        node = found.id
        source = (path, sourceBus)
        revision = nested ? nil : graph.revision
        return (meter, true)
    }

    /// The bus's loudness meter, installed on first use (and again with the level meter);
    /// nil for a recorder's name, which has levels only.
    func loudness(in graph: Graph, recorders: [String: FileRecorder]) throws(ControlError) -> BusLoudness? {
        let (meter, _) = try meter(in: graph, recorders: recorders)
        guard meter is BusMeter, let source else { return nil }
        if let loudness { return loudness }
        let made: BusLoudness
        do { made = try BusLoudness(channelCount: channelCount, sampleRate: graph.sampleRate) } catch {
            throw ControlError(.badValue, "\(bus): \(error)")
        }
        do { loudnessToken = try graph.addObserver(made, path: source.node, bus: source.bus) } catch { throw ControlError(error) }
        loudness = made
        return made
    }

    private func removeLoudness() {
        if let loudnessToken, let graph { try? graph.removeObserver(loudnessToken) }
        loudness = nil
        loudnessToken = nil
    }

    /// Stops metering. Thread: the dispatcher's queue.
    func remove() {
        removeLoudness()
        if let token, let graph { try? graph.removeObserver(token) }
        meter = nil
        token = nil
        graph = nil
        revision = nil
    }

    private func resolve(_ node: Node, in graph: Graph) throws(ControlError) -> (Node, Int) {
        let outputs = node.unit.elementCount(.output)
        if let bus = bus.bus {
            guard bus < outputs else {
                throw ControlError(.graph, "\(node.name) has \(outputs) output bus\(outputs == 1 ? "" : "es"); there is no bus \(bus)")
            }
            return (node, bus)
        }
        if outputs > 0 { return (node, 0) }
        guard !bus.node.contains("/"), let feed = graph.connections.first(where: { $0.destination == node.id && $0.destinationBus == 0 }),
              let source = try? graph.node(feed.source)
        else {
            throw ControlError(.graph, "\(node.name) has no output bus and nothing feeds it, so there is nothing to meter")
        }
        return (source, feed.sourceBus)
    }
}
