import TrellisCore
import TrellisGraph

extension GraphBuilder {
    /// Buses, state, preset, bypass, then parameters, in that order, so that the
    /// parameters written win over what a preset or state set; all through the factory,
    /// with the baseline a save compares with taken before the parameters.
    func configure(_ unit: any AudioUnit, _ spec: NodeSpec, path: String, directory: String) throws(SessionError) {
        var shape = (spec.unitDescription ?? spec.description(unit: spec.unitText)).anchoringFiles(in: directory)
        shape.parameters = []
        do { try factory.configure(unit, shape) } catch { throw self.error(error, in: spec) }
        recordBaseline(unit, path: path)
        for setting in spec.parameters {
            try apply(setting, to: unit, node: spec.name, path: setting.name)
        }
    }

    /// Records the values a node has before its own parameters apply, for every node of
    /// a unit (inside subgraphs too), keyed by node path.
    func recordBaseline(_ unit: any AudioUnit, path: String) {
        if let subgraph = unit as? Subgraph {
            for node in subgraph.graph.nodes { recordBaseline(node.unit, path: path + "/" + node.name) }
            return
        }
        var values: [String: Float] = [:]
        for info in unit.parameters where info.isWritable {
            if let value = try? unit.parameterValue(info.address) { values[info.identifier] = value }
        }
        baselines[path] = values
    }

    /// Sets `name` on `unit`; on a subgraph, `inner.name` sets it on the inner node.
    private func apply(_ setting: ParameterSetting, to unit: any AudioUnit, node: String, path name: String) throws(SessionError) {
        if let subgraph = unit as? Subgraph {
            let parts = name.split(separator: ".", maxSplits: 1)
            let innerNames = subgraph.graph.nodes.map(\.name)
            guard parts.count == 2, let inner = subgraph.graph.nodes.first(where: { $0.name == parts[0] }) else {
                let hint = Suggestions.didYouMean(Suggestions.closest(to: String(parts.first ?? ""), among: innerNames))
                throw SessionError(
                    "node \(quoted(node)) is a subgraph: its parameters are written inner-node.parameter, and \(quoted(name)) names no node inside it\(hint)",
                    at: setting.location)
            }
            try apply(setting, to: inner.unit, node: node + "/" + inner.name, path: String(parts[1]))
            return
        }
        do { try factory.apply(NodeDescription.Setting(name: name, value: setting.value), to: unit) } catch {
            let location = if case .unknownParameter = error { setting.location } else { setting.valueLocation }
            throw SessionError("node \(quoted(node)): \(error)", at: location)
        }
    }

    /// Places an error from initializing the graph at the node or connection it names.
    func locate(_ error: GraphError, in body: GraphBody, built: Built, file: String) -> SessionError {
        func top(_ name: String) -> String { String(name.split(separator: "/", maxSplits: 1).first ?? Substring(name)) }
        func node(_ name: String) -> SourceLocation? { body.nodes.first { $0.name == top(name) }?.location }
        let start = body.location ?? SourceLocation(file: file, line: 1, column: 1)
        switch error {
        case .formatMismatch(let from, _, let to, _):
            let connection = body.connections.first { $0.from.node == top(from.node) && $0.to.node == top(to.node) }
            return SessionError("\(error)", at: connection?.location ?? node(to.node) ?? start)
        case .unit(let name, _), .subgraph(let name, _):
            return SessionError("\(error)", at: node(name) ?? start)
        case .noOutputNode:
            return SessionError("the session has no output node: add one (e.g. `out: output`) and connect the last unit to it", at: start)
        case .multipleOutputNodes(let names), .multipleInputNodes(let names):
            return SessionError("\(error)", at: names.dropFirst().first.flatMap(node) ?? start)
        default:
            return SessionError("\(error)", at: start)
        }
    }
}
