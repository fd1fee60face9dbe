import TrellisCore
import TrellisGraph
import TrellisUnits

/// Brings a loaded document up to date with its live graph.
struct DocumentSync {
    let session: LoadedSession

    func document() -> SessionDocument {
        var document = session.loadedDocument
        let graph = session.graph
        let start = document.location
        var nodes: [NodeSpec] = []
        for spec in document.graph.nodes {
            guard let node = try? graph.node(named: spec.name) else { continue }
            var spec = updated(spec, unit: node.unit)
            automation(&spec, node: node)
            nodes.append(spec)
        }
        for node in graph.nodes where !nodes.contains(where: { $0.name == node.name }) && !Self.isMIDIPort(node.unit) {
            var spec = NodeSpec(name: node.name, source: .unit(unitKey(node.unit)), location: start)
            if let multiMono = node.unit as? MultiMonoUnit { spec.channels = multiMono.instances.count } else { shape(&spec, unit: node.unit) }
            spec = updated(spec, unit: node.unit)
            automation(&spec, node: node)
            nodes.append(spec)
        }
        document.graph.nodes = nodes
        document.midiMap = midiMap()

        let names = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.id, $0.name) })
        let live = graph.connections.map { connection in
            (from: BusReference(node: names[connection.source] ?? "", bus: connection.sourceBus),
             to: BusReference(node: names[connection.destination] ?? "", bus: connection.destinationBus),
             convert: connection.converts)
        }
        var connections: [ConnectionSpec] = []
        let liveMIDI = graph.midiConnections.map { connection in
            (from: BusReference(node: names[connection.source] ?? "", bus: connection.sourceBus),
             to: BusReference(node: names[connection.destination] ?? "", bus: connection.destinationBus))
        }
        let ids = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.name, $0.id) })
        func writtenAsMIDI(_ spec: ConnectionSpec) -> Bool {
            guard !spec.from.midi && !spec.to.midi else { return true }
            guard let source = ids[spec.from.node], let destination = ids[spec.to.node] else { return false }
            return graph.impliesMIDI(from: source, to: destination)
        }
        /// A connection by its ends and kind, for matching written ones with live ones.
        struct Key: Hashable {
            var from: String, fromBus: Int, to: String, toBus: Int, midi: Bool
        }
        func key(_ from: BusReference, _ to: BusReference, midi: Bool) -> Key {
            Key(from: from.node, fromBus: from.busIndex, to: to.node, toBus: to.busIndex, midi: midi)
        }
        let liveAudio = Dictionary(live.map { (key($0.from, $0.to, midi: false), $0.convert) }) { first, _ in first }
        let liveMIDIKeys = Set(liveMIDI.map { key($0.from, $0.to, midi: true) })
        var written = Set<Key>()
        for spec in document.graph.connections {
            let midi = writtenAsMIDI(spec)
            let specKey = key(spec.from, spec.to, midi: midi)
            let kept = midi ? liveMIDIKeys.contains(specKey) : liveAudio[specKey] == spec.convert
            if kept {
                connections.append(spec)
                written.insert(specKey)
            }
        }
        for connection in live where !written.contains(key(connection.from, connection.to, midi: false)) {
            connections.append(ConnectionSpec(from: connection.from, to: connection.to, convert: connection.convert, location: start))
        }
        for (index, connection) in liveMIDI.enumerated() where !written.contains(key(connection.from, connection.to, midi: true)) {
            // Written plainly (`keys -> piano`) when the rule reads it back as MIDI.
            let midi = graph.midiConnections[index]
            let plain = midi.sourceBus == 0 && midi.destinationBus == 0 && graph.impliesMIDI(from: midi.source, to: midi.destination)
            let from = plain ? BusReference(node: connection.from.node)
                : BusReference(node: connection.from.node, bus: midi.sourceBus == 0 ? nil : midi.sourceBus, midi: true)
            let to = plain ? BusReference(node: connection.to.node)
                : BusReference(node: connection.to.node, bus: midi.destinationBus == 0 ? nil : midi.destinationBus, midi: true)
            connections.append(ConnectionSpec(from: from, to: to, location: start))
        }
        document.graph.connections = connections
        return document
    }

    /// A node's lanes: as written while the graph has them as they were read, else the
    /// graph's, their positions in seconds and their values as the parameter writes them.
    private func automation(_ spec: inout NodeSpec, node: Node) {
        let live = session.graph.automation(of: node.id)
        guard live != (session.writtenAutomation[node.name] ?? [:]) else { return }
        let rate = session.graph.sampleRate
        spec.automation = live.keys.sorted().compactMap { identifier in
            guard let lane = live[identifier], let info = node.unit.parameters.first(where: { $0.identifier == identifier }) else { return nil }
            let points = lane.points.map { point in
                (time: TransportTime.seconds(Double(point.frame) / rate), value: ParameterText.encode(point.value, for: info))
            }
            return AutomationSpec(parameter: identifier, points: points, stepped: lane.stepped, location: spec.location)
        }
    }

    /// The graph's controller mappings, by node and port names.
    private func midiMap() -> [MIDIMapSpec] {
        let graph = session.graph
        let ports = session.loadedDocument.jack?.midiInputs ?? []
        return graph.controllerMappings.compactMap { mapping in
            guard let node = try? graph.node(mapping.node) else { return nil }
            let info = mapping.parameter.flatMap { identifier in node.unit.parameters.first { $0.identifier == identifier } }
            func text(_ value: Float?) -> String? { value.flatMap { value in info.map { ParameterText.encode(value, for: $0) } } }
            return MIDIMapSpec(
                controller: mapping.controller, channel: mapping.channel.map { $0 + 1 },
                port: mapping.port.flatMap { $0 < ports.count ? ports[$0] : nil }, node: node.name, parameter: mapping.parameter,
                minimum: text(mapping.minimum), maximum: text(mapping.maximum), location: session.loadedDocument.location)
        }
    }

    /// MIDI port nodes come from `jack:`, not `nodes:`.
    static func isMIDIPort(_ unit: any AudioUnit) -> Bool {
        switch unit.role {
        case .midiInputPort, .midiOutputPort: true
        default: false
        }
    }

    /// A node's parameters and state from its unit; placeholders stay as written.
    private func updated(_ spec: NodeSpec, unit: any AudioUnit) -> NodeSpec {
        if unit is PlaceholderUnit { return spec }
        var spec = spec
        if case .bool(let bypassed)? = try? unit.property(.bypassEffect, scope: .global, element: 0) {
            // Left as written unless it changed while running.
            if bypassed != (spec.bypass ?? false) { spec.bypass = bypassed }
        }
        if let subgraph = unit as? Subgraph {
            spec.parameters = overrides(spec.parameters, subgraph: subgraph, path: spec.name)
            return spec
        }
        spec.parameters = parameters(spec.parameters, unit: unit, baseline: session.baselines[spec.name] ?? [:], prefix: "")
        if let stateful = unit as? any StatefulUnit, let text = try? stateful.stateText() {
            spec.state = text
        }
        if let taker = unit as? any FileTakingUnit, !taker.files.isEmpty {
            spec.files = taker.files.map { file in
                ParameterSetting(name: file.name, value: file.path, location: spec.files.first { $0.name == file.name }?.location ?? spec.location)
            }
        }
        return spec
    }

    /// The settings written, with live values, then every other writable parameter
    /// whose value moved from its baseline. Names keep the spelling written.
    private func parameters(_ written: [ParameterSetting], unit: any AudioUnit, baseline: [String: Float], prefix: String) -> [ParameterSetting] {
        var result: [ParameterSetting] = []
        var covered = Set<String>()
        for setting in written {
            guard setting.name.hasPrefix(prefix), let info = ParameterText.find(String(setting.name.dropFirst(prefix.count)), in: unit),
                  let value = try? unit.parameterValue(info.address)
            else {
                if setting.name.hasPrefix(prefix) { result.append(setting) }
                continue
            }
            covered.insert(info.identifier)
            var setting = setting
            if let written = try? ParameterText.value(setting.value, for: info), written == value {
                result.append(setting)
                continue
            }
            setting.value = ParameterText.encode(value, for: info, like: setting.value)
            result.append(setting)
        }
        for info in unit.parameters where info.isWritable && !covered.contains(info.identifier) {
            guard let value = try? unit.parameterValue(info.address), value != (baseline[info.identifier] ?? info.defaultValue) else { continue }
            let location = session.loadedDocument.location
            result.append(ParameterSetting(name: prefix + info.identifier, value: ParameterText.encode(value, for: info), location: location))
        }
        return result
    }

    /// Overrides of a subgraph node: `inner.parameter` for every inner value that
    /// differs from what the definition set, nested subgraphs included.
    private func overrides(_ written: [ParameterSetting], subgraph: Subgraph, path: String) -> [ParameterSetting] {
        var result: [ParameterSetting] = []
        func walk(_ graph: Graph, prefix: String, path: String) {
            for node in graph.nodes {
                if let inner = node.unit as? Subgraph {
                    walk(inner.graph, prefix: prefix + node.name + ".", path: path + "/" + node.name)
                    continue
                }
                if node.unit is PlaceholderUnit { continue }
                let mine = written.filter { $0.name.hasPrefix(prefix + node.name + ".") }
                result += parameters(mine, unit: node.unit, baseline: session.baselines[path + "/" + node.name] ?? [:], prefix: prefix + node.name + ".")
            }
        }
        walk(subgraph.graph, prefix: "", path: path)
        // Settings that name nothing inside (kept as written, though a load refuses them).
        let known = Set(result.map(\.name))
        for setting in written where !known.contains(setting.name) && !result.contains(where: { $0.name.lowercased() == setting.name.lowercased() }) {
            if !subgraph.graph.nodes.contains(where: { setting.name.hasPrefix($0.name + ".") }) { result.append(setting) }
        }
        return result
    }

    /// The widths and channel map a built-in unit added at run time was given (`add
    /// NODE UNIT input-channels=1 channel-map=0,0`), where they differ from a fresh
    /// unit's. Plugins are left alone: their ports fix their widths.
    private func shape(_ spec: inout NodeSpec, unit: any AudioUnit) {
        guard let component = session.graph.registry.components(matching: unit.componentDescription).first, component.uri == nil,
              let fresh = try? session.graph.registry.instantiate(component) else { return }
        func width(_ unit: any AudioUnit, _ scope: Scope) -> Int? {
            unit.elementCount(scope) > 0 ? (try? unit.format(scope: scope, element: 0))?.channelCount : nil
        }
        if unit.elementCount(.input) != fresh.elementCount(.input) { spec.inputs = unit.elementCount(.input) }
        if unit.elementCount(.output) != fresh.elementCount(.output) { spec.outputs = unit.elementCount(.output) }
        let inputs = width(unit, .input), outputs = width(unit, .output)
        if inputs != width(fresh, .input) || outputs != width(fresh, .output) {
            if let inputs, let outputs, inputs == outputs {
                spec.channels = inputs
            } else if inputs == nil || outputs == nil {
                spec.channels = inputs ?? outputs
            } else {
                spec.inputChannels = inputs
                spec.outputChannels = outputs
            }
        }
        if case .channelMap(let entries)? = try? unit.property(.channelMap, scope: .global, element: 0),
           let inputs, let outputs, entries != ChannelMap.standard(inputs: inputs, outputs: outputs).entries {
            spec.channelMap = entries
        }
    }

    /// How a save names a unit added at run time: its short name, URI or triple.
    private func unitKey(_ unit: any AudioUnit) -> String {
        let components = session.graph.registry.components(matching: unit.componentDescription)
        if let component = components.first {
            if let uri = component.uri { return "lv2:" + uri }
            return component.shortName
        }
        return unit.componentDescription.description
    }
}
