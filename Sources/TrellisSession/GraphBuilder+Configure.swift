import TrellisCore
import TrellisGraph

extension GraphBuilder {
    /// Buses, state, preset, bypass, then parameters, in that order, so that the
    /// parameters written win over what a preset or state set.
    func configure(_ unit: any AudioUnit, _ spec: NodeSpec, path: String) throws(SessionError) {
        func attempt(_ key: String, _ body: () throws(AudioUnitError) -> Void) throws(SessionError) {
            do { try body() } catch {
                throw SessionError("node \(quoted(spec.name)): \(error)", at: spec.positions[key] ?? spec.location)
            }
        }
        if let count = spec.inputs { try attempt("inputs") { () throws(AudioUnitError) in try unit.setProperty(.elementCount, .int(count), scope: .input, element: 0) } }
        if let count = spec.outputs { try attempt("outputs") { () throws(AudioUnitError) in try unit.setProperty(.elementCount, .int(count), scope: .output, element: 0) } }
        for (scope, key, width) in [(Scope.input, "input-channels", spec.inputChannels), (.output, "output-channels", spec.outputChannels)] {
            guard let channels = width ?? spec.channels else { continue }
            try attempt(width == nil ? "channels" : key) { () throws(AudioUnitError) in
                for element in 0..<unit.elementCount(scope) {
                    var format = try unit.format(scope: scope, element: element)
                    format.channelCount = channels
                    try unit.setFormat(format, scope: scope, element: element)
                }
            }
        }
        if let state = spec.state {
            guard let stateful = unit as? any StatefulUnit else {
                throw SessionError("node \(quoted(spec.name)): \(unit.name) keeps no saved state; remove state:", at: spec.positions["state"] ?? spec.location)
            }
            try attempt("state") { () throws(AudioUnitError) in try stateful.restore(stateText: state) }
        }
        if let preset = spec.preset {
            try attempt("preset") { () throws(AudioUnitError) in try unit.setProperty(.presentPreset, .string(preset), scope: .global, element: 0) }
        }
        if let bypass = spec.bypass {
            try attempt("bypass") { () throws(AudioUnitError) in try unit.setProperty(.bypassEffect, .bool(bypass), scope: .global, element: 0) }
        }
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
        guard let info = ParameterText.find(name, in: unit) else {
            let hint = Suggestions.didYouMean(Suggestions.closest(to: name, among: unit.parameters.map(\.identifier)))
            throw SessionError("node \(quoted(node)): \(unit.name) has no parameter named \(quoted(name))\(hint)", at: setting.location)
        }
        guard info.isWritable else {
            throw SessionError("node \(quoted(node)): parameter \(info.identifier) is read-only (the unit writes it)", at: setting.location)
        }
        let value: Float
        switch ParameterText.decode(setting.value, for: info) {
        case .success(let decoded): value = decoded
        case .failure(let problem): throw SessionError("node \(quoted(node)): \(problem.message)", at: setting.valueLocation)
        }
        do { try unit.setParameter(info.address, value, rampFrames: 0) } catch {
            throw SessionError("node \(quoted(node)): \(error)", at: setting.valueLocation)
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
