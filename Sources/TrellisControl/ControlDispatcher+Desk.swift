import Foundation
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisMedia
import TrellisSession

/// What a desk (the web page, or any client that draws the session) asks for: the whole
/// graph in one reply, the units it can add, the takes on disk, and an event whenever a
/// parameter moves or the graph changes, whoever moved or changed it.
extension ControlDispatcher {
    /// Thread: the dispatcher's queue.
    func describe() -> ControlReply {
        let graph = self.graph
        var delays: [String: Int] = [:]
        for delay in graph.plan?.delays ?? [] { delays[delay.key] = delay.frames }
        let (nodes, connections, midi) = Self.describe(graph, path: "", delays: delays, unitKey: unitKey)
        let recorders = target.session.recorders.map { spec -> ControlValue in
            let recorder = self.recorders[spec.name]
            let source = graph.nodes.first { $0.id == spec.node }?.name ?? "?"
            return .object([
                ("name", .string(spec.name)), ("bus", .string("\(source).\(spec.bus)")),
                ("state", .string(recorder?.recorderState.rawValue ?? "absent")), ("file", .string(takePaths[spec.name] ?? spec.path)),
                ("seconds", .number(recorder.map { Double($0.framesWritten) / $0.sampleRate } ?? 0)),
            ])
        }
        let value = ControlValue.object([
            ("sampleRate", .number(graph.sampleRate)), ("latency", .number(graph.latency)),
            ("nodes", .array(nodes)), ("connections", .array(connections)), ("midi", .array(midi)), ("recorders", .array(recorders)),
        ])
        return .ok(text: "\(nodes.count) nodes, \(connections.count) connections, \(midi.count) MIDI connections, \(recorders.count) recorders", value: value)
    }

    /// A graph's nodes (subgraphs inside their node, as `graph`), audio connections and
    /// MIDI connections, by names relative to the graph.
    private static func describe(
        _ graph: Graph, path: String, delays: [String: Int], unitKey: (any AudioUnit) -> String
    ) -> (nodes: [ControlValue], connections: [ControlValue], midi: [ControlValue]) {
        let names = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.id, $0.name) })
        let nodes = graph.nodes.map { node -> ControlValue in
            let unit = node.unit
            func buses(_ scope: Scope) -> ControlValue {
                .array((0..<unit.elementCount(scope)).map { element in
                    let channels = (try? unit.format(scope: scope, element: element).channelCount) ?? 0
                    var members: [(String, ControlValue)] = [("channels", .number(channels))]
                    if scope == .input, let frames = delays["\(unit.unitID).\(element)"] { members.append(("delay", .number(frames))) }
                    return .object(members)
                })
            }
            var members: [(String, ControlValue)] = [
                ("name", .string(node.name)), ("path", .string(path + node.name)), ("unit", .string(unitKey(unit))),
                ("unitName", .string(unit.name)), ("kind", .string(ComponentType.name(of: unit.componentDescription.type))),
                ("triple", .string(unit.componentDescription.description)),
                ("inputs", buses(.input)), ("outputs", buses(.output)),
                ("midiInputs", .number(unit.midiBusCount(.input))), ("midiOutputs", .number(unit.midiBusCount(.output))),
                ("latency", .number(unit.latencyFrames)), ("bypass", .bool(unit.isBypassed)),
                ("player", .bool(unit is FilePlayer)),
            ]
            if let subgraph = unit as? Subgraph {
                let inner = describe(subgraph.graph, path: path + node.name + "/", delays: delays, unitKey: unitKey)
                members.append(("graph", .object([("nodes", .array(inner.nodes)), ("connections", .array(inner.connections)), ("midi", .array(inner.midi))])))
            }
            return .object(members)
        }
        let connections = graph.connections.map { connection -> ControlValue in
            .object([
                ("from", .string("\(names[connection.source] ?? "?").\(connection.sourceBus)")),
                ("to", .string("\(names[connection.destination] ?? "?").\(connection.destinationBus)")), ("convert", .bool(connection.converts)),
            ])
        }
        let midi = graph.midiConnections.map { connection -> ControlValue in
            .object([
                ("from", .string("\(names[connection.source] ?? "?").midi\(connection.sourceBus)")),
                ("to", .string("\(names[connection.destination] ?? "?").midi\(connection.destinationBus)")),
            ])
        }
        return (nodes, connections, midi)
    }

    /// Every unit `add` can name (the catalog the program gave, else the registry's),
    /// or those whose short name, name, triple or URI holds `text`, without regard to
    /// case. Thread: the dispatcher's queue.
    func units(matching text: String?) -> ControlReply {
        let all = unitCatalog?() ?? target.registry.components
        let needle = text?.lowercased()
        let chosen = all.filter { component in
            guard component.problem == nil else { return false }
            guard let needle, !needle.isEmpty else { return true }
            return [component.shortName, component.displayName, component.componentDescription.description, component.uri ?? ""]
                .contains { $0.lowercased().contains(needle) }
        }
        let values = chosen.map { component -> ControlValue in
            .object([
                ("name", .string(component.uri.map { "lv2:" + $0 } ?? component.shortName)), ("shortName", .string(component.shortName)),
                ("displayName", .string(component.displayName)), ("triple", .string(component.componentDescription.description)),
                ("kind", .string(component.kind)), ("origin", .string("\(component.origin)")),
            ])
        }
        let text = chosen.map { $0.uri.map { "lv2:" + $0 } ?? $0.shortName }.joined(separator: " ")
        return .ok(text: text, value: .array(values))
    }

    /// The takes of every recorder on disk: its file (`mixdown.wav`) and the numbered
    /// ones `record start` made beside it (`mixdown-2.wav`, ...), with their sizes.
    /// Thread: the dispatcher's queue.
    func takes() -> ControlReply {
        var values: [ControlValue] = []
        var words: [String] = []
        for spec in target.session.recorders {
            for path in Self.takeFiles(of: spec.path) {
                var info = stat()
                guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                let recording = takePaths[spec.name] == path && (recorders[spec.name].map { $0.isRecording || $0.recorderState == .paused } ?? false)
                values.append(.object([
                    ("recorder", .string(spec.name)), ("file", .string(path)), ("name", .string((path as NSString).lastPathComponent)),
                    ("bytes", .number(Double(info.st_size))), ("recording", .bool(recording)),
                ]))
                words.append(CommandTokenizer.quote(path))
            }
        }
        return .ok(text: words.joined(separator: " "), value: .array(values))
    }

    /// A recorder's file and its numbered takes that exist, in take order.
    public static func takeFiles(of path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path, ext = url.pathExtension
        let stem = url.deletingPathExtension().lastPathComponent
        let suffix = ext.isEmpty ? "" : "." + ext
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var numbered: [(Int, String)] = []
        for name in names where name.hasPrefix(stem) && name.hasSuffix(suffix) {
            let middle = name.dropFirst(stem.count).dropLast(suffix.count)
            if middle.isEmpty {
                numbered.append((1, name))
            } else if middle.first == "-", let number = Int(middle.dropFirst()), number >= 2, "\(number)" == middle.dropFirst() {
                numbered.append((number, name))
            }
        }
        return numbered.sorted { $0.0 < $1.0 }.map { folder + "/" + $0.1 }
    }

    /// A `parameter` event for every writable parameter whose value changed since the
    /// last look, every 40 ms while any peer watches them: so a desk sees what MIDI learn
    /// or automation changed (a client's change is sent at once, `sendParameterChanges`).
    /// While a watch reads meters 25 times a second or more, the look rides on its frames
    /// instead: one wake, not two. Meters (a unit's outputs) are read with `params`.
    /// Thread: the dispatcher's queue.
    func updateParameterWatch() {
        let watches = peers.withLock { Array($0.values) }.compactMap(\.watch)
        let wanted = watches.contains { $0.request.kinds.contains(.parameter) }
        let carrier = wanted ? watches.first { $0.timer != nil && $0.request.rate >= 25 } : nil
        if wanted != desk.watchesParameters { desk.watched = wanted ? watchedParameters() : [] }
        desk.watchesParameters = wanted
        desk.parameterCarrier = carrier.map(ObjectIdentifier.init)
        let needsTimer = wanted && carrier == nil
        guard needsTimer != (desk.parameterTimer != nil) else { return }
        guard needsTimer else {
            desk.parameterTimer?.cancel()
            desk.parameterTimer = nil
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 0.04, repeating: 0.04, leeway: .milliseconds(5))
        timer.setEventHandler { [weak self] in self?.sendParameterChanges() }
        desk.parameterTimer = timer
        timer.resume()
    }

    /// Sends the changes since the last look now (a client's `set`, `undo` or `preset`
    /// is heard at once, not at the next look). Thread: the dispatcher's queue.
    func sendParameterChanges() {
        guard desk.watchesParameters else { return }
        // Read from a local list: one access to the dispatcher's state, not one a parameter.
        var watched: [DeskState.WatchedUnit] = []
        swap(&watched, &desk.watched)
        var stale = false
        var changed: [Int] = []
        for group in watched.indices {
            // A unit that made its parameter list again has new indices: look again.
            if let base = watched[group].base, base.values !== watched[group].values {
                stale = true
                continue
            }
            changed.removeAll(keepingCapacity: true)
            watched[group].look(changed: &changed)
            for entry in changed {
                let value = watched[group].sent[entry], info = watched[group].infos[entry]
                let node = watched[group].node, name = watched[group].prefix + info.identifier
                let text = ParameterText.encode(value, for: info)
                broadcast(ControlEvent(
                    kind: .parameter, text: "\(node) \(name) \(CommandTokenizer.quote(text))",
                    data: .object([("node", .string(node)), ("parameter", .string(name)), ("value", .number(value)), ("text", .string(text))])))
            }
        }
        desk.watched = stale ? watchedParameters() : watched
    }

    /// Every unit with writable parameters in the graph, with their values now; made
    /// again when the graph changes (`reportEdit`, a load). Thread: the dispatcher's queue.
    func watchedParameters() -> [DeskState.WatchedUnit] {
        var watched: [DeskState.WatchedUnit] = []
        for node in graph.nodes {
            for (prefix, unit) in Self.parameterHolders(node.unit, prefix: "") {
                let base = unit as? AudioUnitBase, values = base?.values
                var group = DeskState.WatchedUnit(node: node.name, prefix: prefix, unit: unit, base: base, values: values)
                for (index, info) in unit.parameters.enumerated() where info.isWritable {
                    group.infos.append(info)
                    group.indices.append(index)
                    group.sent.append(values.map { $0[index] } ?? ((try? unit.parameterValue(info.address)) ?? info.defaultValue))
                }
                if !group.infos.isEmpty { watched.append(group) }
            }
        }
        return watched
    }

    /// Tells watchers of `edit` that a command changed what `describe` answers.
    /// Thread: the dispatcher's queue.
    func reportEdit(_ command: ControlCommand, _ reply: ControlReply, peer: ControlPeer?) {
        guard case .ok = reply else { return }
        let label: String
        switch command {
        case .add, .remove, .batch, .undo, .redo:
            // The graph's parameters changed: look again at the new set.
            if desk.watchesParameters {
                sendParameterChanges()
                desk.watched = watchedParameters()
            }
        case .set, .bypass, .preset, .propertySet: sendParameterChanges()
        default: break
        }
        switch command {
        case .set, .get, .learn: return
        case .undo: label = "undo"
        case .redo: label = "redo"
        case .record(let action, _, _, _) where action != .meter: label = "record \(action)"
        default:
            guard Self.changesSavedSession(command), let undo = Self.undoLabel(command) else { return }
            label = undo.label
        }
        broadcast(ControlEvent(kind: .edit, text: label, data: .object([("command", .string(label)), ("client", .string(peer?.name ?? "session"))])))
    }
}

/// The dispatcher's desk state (queue only).
struct DeskState {
    /// A unit whose writable parameters a watcher hears about. A look (every 40 ms, or
    /// with each meter frame) reads only `indices` and `sent`.
    struct WatchedUnit {
        var node: String
        /// The path inside a subgraph node (`trim.`), or empty.
        var prefix: String
        var unit: any AudioUnit
        var base: AudioUnitBase?
        /// The unit's values, read in place by index; nil for a unit that is not an
        /// `AudioUnitBase` (read by address).
        var values: AtomicFloats?
        var infos: [ParameterInfo] = []
        /// Each parameter's index in the unit's list.
        var indices: [Int] = []
        /// Each parameter's value last sent.
        var sent: [Float] = []

        /// Reads every value, keeps those that changed as sent and appends their entries
        /// to `changed`: thirty looks a second at hundreds of parameters.
        mutating func look(changed: inout [Int]) {
            let indices = self.indices
            guard let values else {
                for entry in indices.indices {
                    guard let value = try? unit.parameterValue(infos[entry].address), value != sent[entry] else { continue }
                    sent[entry] = value
                    changed.append(entry)
                }
                return
            }
            sent.withUnsafeMutableBufferPointer { sent in
                for entry in 0..<indices.count {
                    let value = values[indices[entry]]
                    guard value != sent[entry] else { continue }
                    sent[entry] = value
                    changed.append(entry)
                }
            }
        }
    }

    var watchesParameters = false
    /// The meter watch whose frames look at the parameters; nil when the timer does.
    var parameterCarrier: ObjectIdentifier?
    var parameterTimer: DispatchSourceTimer?
    var watched: [WatchedUnit] = []
}
