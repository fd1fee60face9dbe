import TrellisCore
import TrellisEngine

/// A MIDI controller that moves a node's parameter, or its bypass (MIDI learn).
public struct ControllerMapping: Sendable, Equatable {
    /// The backend's MIDI input port (0-based), or nil for any.
    public var port: Int?
    /// The channel, 0...15, or nil for any.
    public var channel: Int?
    public var controller: Int
    public var node: NodeID
    /// The parameter's identifier, or nil for the node's bypass.
    public var parameter: String?
    /// What controller values 0 and 127 set (the parameter's range when nil).
    public var minimum: Float?
    public var maximum: Float?

    public init(port: Int?, channel: Int?, controller: Int, node: NodeID, parameter: String?, minimum: Float? = nil, maximum: Float? = nil) {
        self.port = port
        self.channel = channel
        self.controller = controller
        self.node = node
        self.parameter = parameter
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// Controllers mapped to parameters: edits like any other (a new program), played on
/// the audio thread at each control change's frame. Thread: control.
extension Graph {
    /// Maps a controller to a parameter (or bypass), replacing what mapped that target.
    public func map(_ mapping: ControllerMapping) throws(GraphError) {
        var mapping = mapping
        let found = try node(mapping.node)
        guard (0...127).contains(mapping.controller), (mapping.channel.map { (0...15).contains($0) } ?? true) else {
            throw .subgraph(node: found.name, reason: "a controller is 0 to 127 and a channel 1 to 16")
        }
        if let identifier = mapping.parameter {
            do {
                let info = try found.unit.parameter(named: identifier)
                for value in [mapping.minimum ?? info.range.lowerBound, mapping.maximum ?? info.range.upperBound] {
                    try info.checkSettable(value, unit: found.unit.name)
                }
                mapping.parameter = info.identifier
            } catch { throw .unit(node: found.name, error) }
        }
        try edit { model in
            model.controllerMappings.removeAll { $0.node == mapping.node && $0.parameter == mapping.parameter }
            model.controllerMappings.append(mapping)
        }
    }

    /// Removes the mappings of a node (of one of its targets: a parameter, or "bypass"),
    /// or every mapping.
    public func unmap(node: NodeID? = nil, parameter: String? = nil) throws(GraphError) {
        try edit { model in
            model.controllerMappings.removeAll { mapping in
                guard let node else { return true }
                guard mapping.node == node else { return false }
                guard let parameter else { return true }
                return (mapping.parameter ?? "bypass") == parameter
            }
        }
    }

    /// Every mapping, in the order made.
    public var controllerMappings: [ControllerMapping] { model.controllerMappings }

    /// The mappings as the compiler plans them: of nodes still in the graph.
    var plannedMIDIMappings: [MIDIMapping] {
        model.controllerMappings.compactMap { mapping in
            guard let unit = model.nodes[mapping.node]?.unit else { return nil }
            guard let identifier = mapping.parameter else {
                return MIDIMapping(port: mapping.port, channel: mapping.channel, controller: mapping.controller, unitID: unit.unitID, target: .bypass)
            }
            guard let index = unit.parameterIndex(named: identifier) else { return nil }
            let range = unit.parameters[index].range
            return MIDIMapping(port: mapping.port, channel: mapping.channel, controller: mapping.controller, unitID: unit.unitID,
                               target: .parameter(Int32(index)), minimum: mapping.minimum ?? range.lowerBound, maximum: mapping.maximum ?? range.upperBound)
        }
    }
}
