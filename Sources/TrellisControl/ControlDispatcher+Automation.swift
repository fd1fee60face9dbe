import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisSession

/// `automate`: a node's parameter follows a lane as the transport plays, an edit like
/// any other (one program swap, undoable, saved).
extension ControlDispatcher {
    func automate(_ name: String, _ identifier: String, _ points: [LanePoint], stepped: Bool) throws(ControlError) -> ControlReply {
        let found = try topNode(name)
        let info = try parameter(identifier, of: found.unit, node: name)
        let time = graph.engine.transportTime
        var lane: [AutomationPoint] = []
        for point in points {
            guard let frame = point.time.frame(on: time, smpte: smpteRate) else {
                throw ControlError(.badValue, "automate: \(point.time) is no position in this meter or frame rate")
            }
            lane.append(AutomationPoint(frame: frame, value: try decode(point.value, for: info, named: info.identifier, node: name)))
        }
        try locked { () throws(ControlError) in
            do throws(GraphError) { try graph.setAutomation(found.id, info.identifier, ParameterLane(points: lane, stepped: stepped)) } catch {
                throw ControlError(error)
            }
        }
        let text = "\(name) \(info.identifier) \(lane.count) point\(lane.count == 1 ? "" : "s")\(stepped ? " step" : "")"
        return .ok(text: text, value: .object([("node", .string(name)), ("parameter", .string(info.identifier)),
                                              ("points", .number(lane.count)), ("step", .bool(stepped))]))
    }

    func clearAutomation(_ name: String?, _ identifier: String?) throws(ControlError) -> ControlReply {
        guard let name else {
            try locked { () throws(ControlError) in
                do throws(GraphError) { try graph.clearAutomation() } catch { throw ControlError(error) }
            }
            return .done
        }
        let found = try topNode(name)
        let identifiers = try identifier.map { word throws(ControlError) in [try parameter(word, of: found.unit, node: name).identifier] }
            ?? Array(graph.automation(of: found.id).keys)
        try locked { () throws(ControlError) in
            do throws(GraphError) {
                try graph.transaction { () throws(GraphError) in
                    for parameter in identifiers { try graph.setAutomation(found.id, parameter, nil) }
                }
            } catch { throw ControlError(error) }
        }
        return .done
    }
}
