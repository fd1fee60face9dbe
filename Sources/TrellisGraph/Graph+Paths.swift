import TrellisCore
import TrellisEngine

/// Nodes inside subgraph nodes, named by path: `strip` is a node of this graph,
/// `strip/trim` the node `trim` inside subgraph node `strip`, as deep as subgraphs nest.
/// The compiler inlines subgraphs, so an inner unit runs, takes parameter events and is
/// metered like any other; only the paths are new.
extension Graph {
    /// The node at `path`. Thread: control.
    public func node(atPath path: String) throws(GraphError) -> Node {
        try locate(path).node
    }

    /// The graph that holds the node at `path`, and the node.
    func locate(_ path: String) throws(GraphError) -> (graph: Graph, node: Node) {
        // A name of this graph's own, the common case, without splitting the path.
        if let id = model.names[path], let node = model.nodes[id] { return (self, node) }
        var graph = self
        var walked = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for (index, name) in parts.enumerated() {
            guard let id = graph.model.names[name], let node = graph.model.nodes[id] else {
                let names = graph.model.order.compactMap { graph.model.nodes[$0]?.name }
                throw .unknownNodeName(walked + name, suggestions: Suggestions.closest(to: name, among: names).map { walked + $0 })
            }
            if index == parts.count - 1 { return (graph, node) }
            guard let subgraph = node.unit as? Subgraph else {
                throw .notASubgraph(node: walked + name, path: path)
            }
            graph = subgraph.graph
            walked += name + "/"
        }
        throw .unknownNodeName(path, suggestions: [])
    }

    /// Shows output `bus` of the node at `path` (inside a subgraph too) to `observer`,
    /// from the next program on. Thread: control.
    public func addObserver(_ observer: any BusObserver, path: String, bus: Int = 0) throws(GraphError) -> ObserverToken {
        let (holder, node) = try locate(path)
        if holder === self { return try addObserver(observer, node: node.id, bus: bus) }
        let outputs = node.unit.elementCount(.output)
        guard bus >= 0 && bus < outputs else {
            throw .invalidElement(Endpoint(node: path, scope: .output, bus: bus), available: outputs)
        }
        let token = ObserverToken(rawValue: model.nextID)
        model.nextID += 1
        holder.model.observers.append(ObserverEntry(token: token, node: node.id, bus: bus, observer: observer))
        do { try edit { _ in } } catch {
            holder.model.observers.removeAll { $0.token == token }
            throw error
        }
        return token
    }

    /// Every subgraph node's graph inside this one, nested ones included, each with the
    /// path of the node that holds it.
    var innerGraphs: [(path: String, graph: Graph)] {
        var found: [(String, Graph)] = []
        func walk(_ graph: Graph, prefix: String) {
            for node in graph.nodes {
                guard let subgraph = node.unit as? Subgraph else { continue }
                found.append((prefix + node.name, subgraph.graph))
                walk(subgraph.graph, prefix: prefix + node.name + "/")
            }
        }
        walk(self, prefix: "")
        return found
    }
}
