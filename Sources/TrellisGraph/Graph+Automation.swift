import TrellisCore
import TrellisEngine

/// A parameter's lane of points, in transport frames, in the parameter's own units.
public struct ParameterLane: Sendable, Equatable {
    public var points: [AutomationPoint]
    /// Held from point to point instead of joined by lines.
    public var stepped: Bool

    public init(points: [AutomationPoint], stepped: Bool = false) {
        self.points = points.sorted { $0.frame < $1.frame }
        self.stepped = stepped
    }

    /// Points a lane may have.
    public static let pointLimit = 100_000
}

/// Automation (Music Player Services' parameter tracks): a node's parameter follows a
/// lane as the transport plays, the same live and offline. Setting or clearing a lane is
/// an edit like any other: a new program. Thread: control.
extension Graph {
    /// Gives a parameter of a node of this graph a lane; nil clears it.
    public func setAutomation(_ node: NodeID, _ identifier: String, _ lane: ParameterLane?) throws(GraphError) {
        let found = try self.node(node)
        let unit = found.unit
        guard let index = unit.parameterIndex(named: identifier) else {
            throw .unit(node: found.name, .unknownParameter(identifier, unit: unit.name, suggestions: Suggestions.closest(to: identifier, among: unit.parameters.map(\.identifier))))
        }
        let info = unit.parameters[index]
        if let lane {
            guard !lane.points.isEmpty, lane.points.count <= ParameterLane.pointLimit else {
                throw .subgraph(node: found.name, reason: "an automation lane has 1 to \(ParameterLane.pointLimit) points")
            }
            for point in lane.points {
                do { try info.checkSettable(point.value, unit: unit.name) } catch { throw .unit(node: found.name, error) }
                if point.frame < 0 { throw .subgraph(node: found.name, reason: "an automation point at frame \(point.frame) is before the start") }
            }
        }
        try edit { model throws(GraphError) in
            model.automation[node, default: [:]][index] = lane
            if model.automation[node]?.isEmpty == true { model.automation[node] = nil }
        }
    }

    /// The lanes of a node, by parameter identifier.
    public func automation(of node: NodeID) -> [String: ParameterLane] {
        guard let unit = model.nodes[node]?.unit, let lanes = model.automation[node] else { return [:] }
        var result: [String: ParameterLane] = [:]
        for (index, lane) in lanes where index < unit.parameters.count { result[unit.parameters[index].identifier] = lane }
        return result
    }

    /// Clears every lane.
    public func clearAutomation() throws(GraphError) {
        try edit { model in model.automation = [:] }
    }

    /// The lanes as the compiler plans them: of nodes still in the graph.
    var plannedAutomation: [AutomationLane] {
        model.automation.flatMap { id, lanes -> [AutomationLane] in
            guard let node = model.nodes[id] else { return [] }
            return lanes.map { index, lane in
                AutomationLane(unitID: node.unit.unitID, parameter: Int32(index), points: lane.points, stepped: lane.stepped,
                               name: "\(node.name) \(node.unit.parameters[index].identifier)")
            }
        }
    }
}
