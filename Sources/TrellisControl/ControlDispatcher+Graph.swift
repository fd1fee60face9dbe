import TrellisCore
import TrellisGraph
import TrellisMedia
import TrellisSession
import TrellisUnits

extension ControlDispatcher {
    func list() -> ControlReply {
        let graph = self.graph
        let names = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.id, $0.name) })
        let nodes = graph.nodes.map { (name: $0.name, unit: unitKey($0.unit)) }
        let connections = graph.connections.map { connection in
            (from: "\(names[connection.source] ?? "?").\(connection.sourceBus)",
             to: "\(names[connection.destination] ?? "?").\(connection.destinationBus)", convert: connection.converts)
        }
        let midi = graph.midiConnections.map { connection in
            (from: "\(names[connection.source] ?? "?").midi\(connection.sourceBus)",
             to: "\(names[connection.destination] ?? "?").midi\(connection.destinationBus)")
        }
        var text = "nodes " + nodes.map { "\($0.name)=\($0.unit)" }.joined(separator: " ")
            + " ; connections " + connections.map { "\($0.from)->\($0.to)\($0.convert ? "(convert)" : "")" }.joined(separator: " ")
        if !midi.isEmpty { text += " ; midi " + midi.map { "\($0.from)->\($0.to)" }.joined(separator: " ") }
        let value = ControlValue.object([
            ("nodes", .array(nodes.map { .object([("name", .string($0.name)), ("unit", .string($0.unit))]) })),
            ("connections", .array(connections.map { .object([("from", .string($0.from)), ("to", .string($0.to)), ("convert", .bool($0.convert))]) })),
            ("midi", .array(midi.map { .object([("from", .string($0.from)), ("to", .string($0.to))]) })),
        ])
        return .ok(text: text, value: value)
    }

    /// How a session names the unit: LV2 URI, short name, or triple.
    func unitKey(_ unit: any AudioUnit) -> String {
        if let placeholder = unit as? PlaceholderUnit { return placeholder.spec.unitText }
        if let component = target.registry.components(matching: unit.componentDescription).first {
            if let uri = component.uri { return "lv2:" + uri }
            return component.shortName
        }
        return unit.componentDescription.description
    }

    /// Makes the unit through the same factory a session's nodes go through, so a text
    /// is accepted or refused here exactly as in a session, with the same message.
    func add(_ name: String, unit key: String, parameters: [ParameterAssignment]) throws(ControlError) -> ControlReply {
        if (try? graph.node(named: name)) != nil { throw ControlError(.duplicateNode, "a node named \(name) already exists") }
        let unit: any AudioUnit
        if let prepared = preparedUnit, prepared.name == name {
            unit = prepared.unit
        } else {
            unit = try makeUnit(name, unit: key, parameters: parameters, registry: target.registry, folder: sessionFolder)
        }
        do { try graph.addNode(unit, name: name) } catch { throw ControlError(error) }
        if unit is FilePlayer { listenToPlayers() }
        return .ok(text: name, value: .object([("node", .string(name)), ("unit", .string(unitKey(unit)))]))
    }

    /// The unit `add` puts in the graph. Thread: any (an `add` makes it on the files queue).
    /// Relative `files.NAME=` paths are in `folder`, the session file's.
    func makeUnit(_ name: String, unit key: String, parameters: [ParameterAssignment], registry: ComponentRegistry, folder: String?)
        throws(ControlError) -> any AudioUnit
    {
        var description: NodeDescription
        do { description = try NodeDescription(unit: key, settings: parameters.map { ($0.name, $0.value) }) } catch {
            throw ControlError(error, node: name)
        }
        if let relative = description.files.first(where: { !$0.value.hasPrefix("/") }) {
            guard let folder else {
                throw ControlError(.session, "\(relative.value) is relative and the session was not loaded from a file: give an absolute path")
            }
            description = description.anchoringFiles(in: folder)
        }
        do { return try UnitFactory(registry: registry).make(description) } catch {
            throw ControlError(error, node: name)
        }
    }

    /// The folder of the session's file; nil when it was not loaded from one.
    var sessionFolder: String? {
        target.session.path.map { path in
            guard let slash = path.lastIndex(of: "/") else { return "." }
            return slash == path.startIndex ? "/" : String(path[..<slash])
        }
    }

    func remove(_ name: String) throws(ControlError) -> ControlReply {
        let found = try topNode(name)
        do { try graph.removeNode(found.id) } catch { throw ControlError(error) }
        for (bus, slot) in meters where bus.node == name {
            slot.remove()
            meters[bus] = nil
        }
        return .done
    }

    /// Audio or MIDI by the graph's one rule (`Graph.impliesMIDI`), or MIDI when either
    /// side is written `NODE.midi`.
    func connect(_ from: BusName, _ to: BusName, convert: Bool) throws(ControlError) -> ControlReply {
        let source = try topNode(from.node), destination = try topNode(to.node)
        let midi = from.midi || to.midi || graph.impliesMIDI(from: source.id, to: destination.id)
        if midi && convert { throw ControlError(.syntax, "connect: MIDI buses have no channels to convert") }
        do {
            if midi {
                try graph.connectMIDI(source.id, from.bus ?? 0, to: destination.id, to.bus ?? 0)
            } else {
                try graph.connect(source.id, from.bus ?? 0, to: destination.id, to.bus ?? 0, converting: convert)
            }
        } catch { throw ControlError(error) }
        return .done
    }

    func disconnect(_ from: BusName?, _ to: BusName) throws(ControlError) -> ControlReply {
        let destination = try topNode(to.node)
        let bus = to.bus ?? 0
        let source = try from.map { name throws(ControlError) in try topNode(name.node) }
        let midiOnly = destination.unit.midiBusCount(.input) > 0 && destination.unit.elementCount(.input) == 0
        let midi = to.midi || (from?.midi ?? false) || (source.map { graph.impliesMIDI(from: $0.id, to: destination.id) } ?? midiOnly)
        if midi {
            // Without a source: every MIDI connection into the bus.
            let feeding = graph.midiConnections.filter {
                $0.destination == destination.id && $0.destinationBus == bus
                    && (source == nil || ($0.source == source!.id && $0.sourceBus == (from?.bus ?? 0)))
            }
            guard !feeding.isEmpty else { throw ControlError(.graph, "\(to.node) midi input \(bus) is not connected\(from.map { " to \($0)" } ?? "")") }
            do {
                try graph.transaction { () throws(GraphError) in
                    for connection in feeding {
                        try graph.disconnectMIDI(connection.source, connection.sourceBus, from: connection.destination, connection.destinationBus)
                    }
                }
            } catch { throw ControlError(error) }
            return .done
        }
        if let from {
            let source = try topNode(from.node)
            if let existing = graph.connections.first(where: { $0.destination == destination.id && $0.destinationBus == bus }),
               existing.source != source.id || existing.sourceBus != (from.bus ?? 0) {
                let feeder = (try? graph.node(existing.source).name) ?? "?"
                throw ControlError(.graph, "\(to.node).\(bus) is fed by \(feeder).\(existing.sourceBus), not \(from.node).\(from.bus ?? 0)")
            }
        }
        do { try graph.disconnect(destination.id, bus) } catch { throw ControlError(error) }
        return .done
    }

    /// Structural edits as one transaction: compiled and swapped in once, or not at all.
    func batch(_ commands: [ControlCommand]) throws(ControlError) -> ControlReply {
        var failure: (index: Int, error: ControlError)?
        var results: [ControlReply] = []
        do {
            try graph.transaction { () throws(GraphError) in
                for (index, command) in commands.enumerated() {
                    do throws(ControlError) {
                        switch command {
                        case .add(let node, let unit, let parameters): results.append(try add(node, unit: unit, parameters: parameters))
                        case .remove(let node): results.append(try remove(node))
                        case .connect(let from, let to, let convert): results.append(try connect(from, to, convert: convert))
                        case .disconnect(let from, let to): results.append(try disconnect(from, to))
                        default: throw ControlError(.syntax, "only add, remove, connect and disconnect can be batched")
                        }
                    } catch {
                        failure = (index, error)
                        throw GraphError.subgraph(node: "", reason: "batch aborted")
                    }
                }
            }
        } catch {
            if let failure {
                throw ControlError(failure.error.code, "command \(failure.index + 1) of the batch: \(failure.error.message); nothing was changed")
            }
            throw ControlError(ControlError(error).code, "the batch was not applied: \(error)")
        }
        let texts = results.map { if case .ok(let text, _) = $0 { text } else { "" } }
        return .ok(text: texts.filter { !$0.isEmpty }.joined(separator: " "), value: .array(results.map { if case .ok(_, let value) = $0 { value } else { .null } }))
    }
}
