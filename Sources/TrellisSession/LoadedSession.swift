import TrellisCore
import TrellisGraph

/// A session loaded: its graph (built, initialized unless asked otherwise), the
/// document it came from, and the parts others wire up — JACK ports, file players,
/// recorders — as checked specs.
///
/// Thread: control.
public final class LoadedSession: @unchecked Sendable {
    /// The document as loaded; `document()` brings it up to date with the graph.
    public let loadedDocument: SessionDocument
    public let graph: Graph
    /// The file it was loaded from, if any; `save()` writes there.
    public let path: String?
    public let sampleRate: Double
    public let blockSize: Int
    public var jack: JackSpec? { loadedDocument.jack }
    public let players: [FilePlayerSpec]
    public let recorders: [RecorderTarget]
    /// Placeholders made, and anything else a person should hear about.
    public let warnings: [SessionWarning]
    let baselines: [String: [String: Float]]
    /// The lanes the file gave each node, by parameter: a save keeps them as written
    /// while the graph still has them so.
    var writtenAutomation: [String: [String: ParameterLane]] = [:]
    /// Puts a graph error at the file, line and column of the node it names.
    private let locate: (GraphError) -> SessionError

    init(
        document: SessionDocument, graph: Graph, path: String?, sampleRate: Double, blockSize: Int,
        players: [FilePlayerSpec], recorders: [RecorderTarget], warnings: [SessionWarning], baselines: [String: [String: Float]],
        locate: @escaping (GraphError) -> SessionError
    ) {
        self.locate = locate
        loadedDocument = document
        self.graph = graph
        self.path = path
        self.sampleRate = sampleRate
        self.blockSize = blockSize
        self.players = players
        self.recorders = recorders
        self.warnings = warnings
        self.baselines = baselines
    }

    /// Initializes a graph loaded with `initialize: false` (built where it may not yet
    /// publish, as a live `load` builds off the control queue); an error is placed at
    /// the node's line. Thread: control.
    public func initialize() throws(SessionError) {
        do { try graph.initialize() } catch { throw locate(error) }
    }

    /// The nodes that stand in for missing plugins.
    public var placeholders: [Node] { graph.nodes.filter { $0.unit is PlaceholderUnit } }

    /// The document as the running graph is now: parameter values and plugin states
    /// read back, nodes and connections added or removed since the load reflected,
    /// everything else (placeholders, subgraph definitions, JACK, recorders) as written.
    public func document() -> SessionDocument {
        DocumentSync(session: self).document()
    }

    /// Writes `document()`, with what `adjust` adds (what the graph cannot know, such as
    /// JACK links made at run time), to `path` (default: where it was loaded from) atomically.
    public func save(to path: String? = nil, adjusting adjust: (inout SessionDocument) -> Void = { _ in }) throws(SessionWriteError) {
        guard let target = path ?? self.path else {
            throw SessionWriteError(path: "(none)", reason: "the session was not loaded from a file; name one")
        }
        var document = document()
        adjust(&document)
        try SessionWriter.save(document, to: target)
    }
}
