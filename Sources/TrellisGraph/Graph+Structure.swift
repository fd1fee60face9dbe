import TrellisCore

/// The graph's nodes and connections as a value, and a return to one in a single edit:
/// what undo and redo are made of. A structure keeps its units alive, so a node undo
/// brings back is the same unit, with its state.
extension Graph {
    public struct Structure: @unchecked Sendable {
        let model: Model

        /// Every unit the structure holds, by node path, inside subgraphs too.
        public var units: [(path: String, unit: any AudioUnit)] {
            var found: [(String, any AudioUnit)] = []
            func walk(_ model: Model, prefix: String) {
                for id in model.order {
                    guard let node = model.nodes[id] else { continue }
                    found.append((prefix + node.name, node.unit))
                    if let subgraph = node.unit as? Subgraph { walk(subgraph.graph.model, prefix: prefix + node.name + "/") }
                }
            }
            walk(model, prefix: "")
            return found
        }
    }

    /// The nodes and connections now. Thread: control.
    public var structure: Structure { Structure(model: model) }

    /// Makes the graph's nodes and connections those of `structure`, compiled and
    /// published once like any edit. Observers stay on the nodes both share. Thread: control.
    public func restore(_ structure: Structure) throws(GraphError) {
        try edit { model throws(GraphError) in
            let kept = model.observers.filter { entry in
                guard let now = model.nodes[entry.node]?.unit, let then = structure.model.nodes[entry.node]?.unit else { return false }
                return now === then
            }
            let nextID = max(model.nextID, structure.model.nextID)
            model = structure.model
            model.observers = kept
            model.nextID = nextID
        }
    }
}
