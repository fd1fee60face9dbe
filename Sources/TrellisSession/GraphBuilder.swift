import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisMedia
import TrellisUnits

/// A file player a session names: its node and file. The player unit reads the file;
/// the session only names it and checked that it exists.
public struct FilePlayerSpec: @unchecked Sendable {
    /// The node's path: `drums`, or `strip1/drums` inside a subgraph node.
    public var node: String
    public var unit: any AudioUnit
    /// The file, resolved against the session file's folder.
    public var path: String
    /// 0 plays once, -1 loops forever.
    public var loops: Int
    public var location: SourceLocation
}

/// Builds graphs from bodies: units made, configured and set, nodes added in the
/// order written, then connected. Throws at the first problem; nothing escapes half built.
final class GraphBuilder {
    /// Subgraph definitions visible from a body, innermost first.
    final class Definitions {
        let subgraphs: [SubgraphSpec]
        let parent: Definitions?
        let directory: String
        let file: String

        init(subgraphs: [SubgraphSpec], parent: Definitions?, directory: String, file: String) {
            self.subgraphs = subgraphs
            self.parent = parent
            self.directory = directory
            self.file = file
        }

        func find(_ name: String) -> (SubgraphSpec, Definitions)? {
            if let spec = subgraphs.first(where: { $0.name == name }) { return (spec, self) }
            return parent?.find(name)
        }

        var allNames: [String] { subgraphs.map(\.name) + (parent?.allNames ?? []) }
    }

    struct Built {
        var graph: Graph
        var ids: [String: NodeID]
    }

    let registry: ComponentRegistry
    let factory: UnitFactory
    /// `file#name` of every subgraph definition built so far.
    private var usedDefinitions: Set<String> = []
    let sampleRate: Double
    let blockSize: Int
    let checkFiles: Bool
    var warnings: [SessionWarning] = []
    var players: [FilePlayerSpec] = []
    /// Parameter values of each node before the node's own `parameters:` applied, by
    /// node path: what a save compares the live values with.
    var baselines: [String: [String: Float]] = [:]
    /// Session files being built, to refuse a file that includes itself.
    var fileStack: [String] = []
    /// Nodes made so far, a subgraph's counted at every use: a few kilobytes of
    /// definitions that each use the one before twice would expand without bound.
    var nodeCount = 0
    /// Subgraph nodes made so far; each is a graph of its own, far heavier than a unit.
    var subgraphCount = 0
    static let nodeLimit = 65_536
    static let subgraphLimit = 4_096
    static let subgraphDepthLimit = 32

    /// Errors found so far; the load fails with all of them once the graph is built.
    var errors: [SessionError] = []

    /// Notes an error and goes on, until `SessionError.limit` of them or one that stops
    /// the reading (an expansion limit), which is passed up as it is; the loader then
    /// reports `errors`.
    func note(_ error: SessionError) throws(SessionError) {
        if error.stopsReading {
            if !stopped { errors.append(error) }
            stopped = true
            throw error
        }
        errors.append(error)
        if errors.count >= SessionError.limit {
            stopped = true
            var full = SessionError.combined(errors)
            full.stopsReading = true
            throw full
        }
    }

    /// A limit was reached; nothing more is looked for.
    private var stopped = false

    /// The engine the top-level graph publishes into, when a running backend already
    /// pulls one; taken by the first (outermost) graph built.
    var engine: RenderEngine?
    /// The one engine every subgraph body's graph holds: the enclosing graph's compiler
    /// inlines a subgraph and it never publishes, so 4,096 uses need not make 4,096
    /// engines and their queues.
    private var subgraphEngine: RenderEngine?
    /// The session's transport: the tempo and frame rate automation's positions are read at.
    var transport: TransportSpec?

    init(registry: ComponentRegistry, sampleRate: Double, blockSize: Int, checkFiles: Bool, engine: RenderEngine? = nil, isolatesPlugins: Bool = false) {
        self.engine = engine
        self.registry = registry
        factory = UnitFactory(registry: registry, isolatesPlugins: isolatesPlugins)
        self.sampleRate = sampleRate
        self.blockSize = blockSize
        self.checkFiles = checkFiles
    }

    /// `stack` holds the subgraph definitions being built around this body; `jack`, for
    /// the top-level body, declares the MIDI ports that become nodes (a subgraph's body
    /// declares its own).
    func build(_ body: GraphBody, scope: Definitions, prefix: String, stack: [String], jack: JackSpec? = nil) throws(SessionError) -> Built {
        let ports = jack.map { MIDIPortNames(jack: $0) } ?? MIDIPortNames(body: body, file: scope.file)
        let graph = Graph(registry: registry, sampleRate: sampleRate, maximumFrames: blockSize, engine: engine ?? subgraphEngine ?? RenderEngine())
        // The first body built is the session's; every later one is a subgraph's.
        if subgraphEngine == nil { subgraphEngine = RenderEngine(eventCapacity: 16) }
        engine = nil
        var units: [String: any AudioUnit] = [:]
        // A node that cannot be made is noted, stands in as a placeholder, and the rest are
        // checked; connections to it are not, since what they would meet is unknown.
        var failed: Set<String> = []
        for spec in body.nodes {
            do {
                if let unit = try makeUnit(spec, scope: scope, prefix: prefix, stack: stack) { units[spec.name] = unit }
            } catch {
                try note(error)
                failed.insert(spec.name)
            }
        }
        for spec in body.nodes where units[spec.name] == nil {
            units[spec.name] = placeholder(for: spec, body: body, units: units, midiPorts: ports.inputs + ports.outputs)
        }
        try runMonoUnitsPerChannel(body, prefix: prefix, units: &units)
        var ids: [String: NodeID] = [:]
        do {
            for spec in body.nodes { ids[spec.name] = try graph.addNode(units[spec.name]!, name: spec.name) }
        } catch {
            throw SessionError("\(error)", at: body.location ?? SourceLocation(file: scope.file, line: 1, column: 1))
        }
        try addMIDIPorts(ports, to: graph, ids: &ids, prefix: prefix)
        // Feedback is looked for once, over every connection, not at each one.
        graph.checksFeedback = false
        defer { graph.checksFeedback = true }
        var edges: [FeedbackSearch.Edge] = []
        for connection in body.connections where !failed.contains(connection.from.node) && !failed.contains(connection.to.node) {
            do { edges.append(try connect(connection, in: graph, ids: ids)) } catch { try note(error) }
        }
        for spec in body.nodes where !spec.automation.isEmpty && !failed.contains(spec.name) {
            guard let id = ids[spec.name], let unit = units[spec.name], !(unit is PlaceholderUnit) else { continue }
            for lane in spec.automation {
                do { try automate(lane, node: spec.name, id: id, unit: unit, in: graph, inSubgraph: !prefix.isEmpty) } catch { try note(error) }
            }
        }
        if errors.isEmpty, let (index, cycle) = FeedbackSearch.firstCycle(edges) {
            let names = Dictionary(ids.map { ($0.value, $0.key) }) { first, _ in first }
            let connection = body.connections[index]
            let error = GraphError.feedback(cycle: cycle.map { names[$0] ?? "?" })
            throw SessionError("connection \(quoted(connection.text)): \(error)", at: connection.location)
        }
        return Built(graph: graph, ids: ids)
    }

    /// A `midi-map:` entry on the built graph: its port by name among the session's MIDI
    /// inputs, its values by the parameter's kind.
    func map(_ spec: MIDIMapSpec, in built: Built, jack: JackSpec?) throws(SessionError) {
        guard let id = built.ids[spec.node], let node = try? built.graph.node(id) else {
            let hint = Suggestions.didYouMean(Suggestions.closest(to: spec.node, among: Array(built.ids.keys)))
            throw SessionError("midi-map: no node named \(quoted(spec.node))\(hint)", at: spec.location)
        }
        if node.unit is PlaceholderUnit { return }
        var port: Int?
        if let name = spec.port {
            let inputs = jack?.midiInputs ?? []
            guard let index = inputs.firstIndex(of: name) else {
                throw SessionError("midi-map: \(quoted(name)) is none of the session's MIDI inputs (jack: midi-inputs: \(inputs.joined(separator: ", ")))", at: spec.location)
            }
            port = index
        }
        var minimum: Float?, maximum: Float?
        if let identifier = spec.parameter {
            let info: ParameterInfo
            do { info = try factory.parameter(identifier, of: node.unit) } catch { throw SessionError("midi-map: node \(quoted(spec.node)): \(error)", at: spec.location) }
            do {
                minimum = try spec.minimum.map { text throws(UnitFactoryError) in try ParameterText.value(text, for: info, named: info.identifier) }
                maximum = try spec.maximum.map { text throws(UnitFactoryError) in try ParameterText.value(text, for: info, named: info.identifier) }
            } catch { throw SessionError("midi-map: node \(quoted(spec.node)): \(error)", at: spec.location) }
        }
        let identifier = try spec.parameter.map { name throws(SessionError) -> String in
            do { return try factory.parameter(name, of: node.unit).identifier } catch { throw SessionError("midi-map: \(error)", at: spec.location) }
        }
        do {
            try built.graph.map(ControllerMapping(
                port: port, channel: spec.channel.map { $0 - 1 }, controller: spec.controller, node: id, parameter: identifier,
                minimum: minimum, maximum: maximum))
        } catch { throw SessionError("midi-map: \(error)", at: spec.location) }
    }

    /// A node's lane: each point's position at the session's tempo, its value by the
    /// parameter's kind.
    private func automate(_ lane: AutomationSpec, node: String, id: NodeID, unit: any AudioUnit, in graph: Graph, inSubgraph: Bool) throws(SessionError) {
        guard !inSubgraph else {
            throw SessionError("node \(quoted(node)): automation is for the session's own nodes, not those inside a subgraph", at: lane.location)
        }
        let info: ParameterInfo
        do { info = try factory.parameter(lane.parameter, of: unit) } catch { throw SessionError("node \(quoted(node)): automation: \(error)", at: lane.location) }
        let tempo = TempoMeter(sampleRate: graph.sampleRate, tempo: transport?.tempo ?? 120,
                               beatsPerBar: Double(transport?.meter?.beatsPerBar ?? 4), beatUnit: transport?.meter?.beatUnit ?? 4)
        var points: [AutomationPoint] = []
        for point in lane.points {
            guard let frame = point.time.frame(tempo: tempo, smpte: transport?.smpte ?? .fps25) else {
                throw SessionError("node \(quoted(node)): automation \(quoted(lane.parameter)): \(point.time) is no position in this meter or frame rate", at: lane.location)
            }
            let value: Float
            do { value = try ParameterText.value(point.value, for: info, named: info.identifier) } catch {
                throw SessionError("node \(quoted(node)): automation \(quoted(lane.parameter)) at \(point.time): \(error)", at: lane.location)
            }
            points.append(AutomationPoint(frame: frame, value: value))
        }
        do { try graph.setAutomation(id, info.identifier, ParameterLane(points: points, stepped: lane.stepped)) } catch {
            throw SessionError("node \(quoted(node)): automation: \(error)", at: lane.location)
        }
    }

    @discardableResult
    private func connect(_ connection: ConnectionSpec, in graph: Graph, ids: [String: NodeID]) throws(SessionError) -> FeedbackSearch.Edge {
        func id(_ reference: BusReference) throws(SessionError) -> NodeID {
            if let id = ids[reference.node] { return id }
            let hint = Suggestions.didYouMean(Suggestions.closest(to: reference.node, among: Array(ids.keys)))
            throw SessionError("connection \(quoted(connection.text)): no node named \(quoted(reference.node))\(hint)", at: connection.location)
        }
        let source = try id(connection.from), destination = try id(connection.to)
        let written = connection.from.midi || connection.to.midi
        let midi = written || graph.impliesMIDI(from: source, to: destination)
        // `convert` maps audio channels; a connection the rule reads as MIDI has none.
        if written && connection.convert {
            throw SessionError("connection \(quoted(connection.text)): MIDI buses have no channels to convert", at: connection.location)
        }
        do throws(GraphError) {
            if midi {
                try graph.connectMIDI(source, connection.from.busIndex, to: destination, connection.to.busIndex)
            } else {
                try graph.connect(source, connection.from.busIndex, to: destination, connection.to.busIndex, converting: connection.convert)
            }
        } catch {
            throw SessionError("connection \(quoted(connection.text)): \(error)", at: connection.location)
        }
        return (source, destination)
    }

    /// The MIDI ports a body's graph gets as nodes: a session's JACK MIDI ports, or a
    /// subgraph's (its body's `midi-inputs:` and `midi-outputs:`, or its file's JACK ones).
    struct MIDIPortNames {
        var inputs: [String]
        var outputs: [String]
        /// Where each list is written: `midi-inputs`, `midi-outputs`.
        var positions: Positions
        var location: SourceLocation
        /// How an error names the list: `jack: ` for a session's ports, nothing for a subgraph's.
        var owner: String

        init(jack: JackSpec) {
            (inputs, outputs, positions, location, owner) = (jack.midiInputs, jack.midiOutputs, jack.positions, jack.location, "jack: ")
        }

        init(body: GraphBody, file: String) {
            (inputs, outputs, positions, owner) = (body.midiInputs, body.midiOutputs, body.positions, "")
            location = body.location ?? SourceLocation(file: file, line: 1, column: 1)
        }
    }

    /// Adds a node for each MIDI port, named as the port: MIDI inputs are sources, MIDI
    /// outputs destinations of MIDI connections. In a subgraph they are its node's MIDI
    /// buses, in order.
    private func addMIDIPorts(_ ports: MIDIPortNames, to graph: Graph, ids: inout [String: NodeID], prefix: String) throws(SessionError) {
        let lists: [(key: String, names: [String], make: (Int) -> any AudioUnit)] = [
            ("midi-inputs", ports.inputs, { MIDIInputPort(port: $0) }),
            ("midi-outputs", ports.outputs, { MIDIOutputPort(port: $0) }),
        ]
        for (key, names, make) in lists {
            let location = ports.positions[key] ?? ports.location
            for (port, name) in names.enumerated() {
                guard ids[name] == nil else {
                    throw SessionError("\(ports.owner)MIDI port \(quoted(name)) has the name of a node; a MIDI port is a node of the graph, so the names must differ", at: location)
                }
                try countNode("MIDI port \(quoted(prefix + name))", at: location)
                do { ids[name] = try graph.addNode(make(port), name: name) } catch { throw SessionError("\(error)", at: location) }
            }
        }
    }

    /// Counts one more node of the expanded session (`what` names it), up to the limit.
    private func countNode(_ what: String, at location: SourceLocation) throws(SessionError) {
        nodeCount += 1
        guard nodeCount <= Self.nodeLimit else {
            var failure = SessionError(
                "\(what): the session expands to more than \(Self.nodeLimit) nodes (a subgraph's nodes count at every use)", at: location)
            failure.stopsReading = true
            throw failure
        }
    }

    /// The unit a node names, configured; nil when it must become a placeholder.
    private func makeUnit(_ spec: NodeSpec, scope: Definitions, prefix: String, stack: [String]) throws(SessionError) -> (any AudioUnit)? {
        let path = prefix + spec.name
        try countNode("node \(quoted(path))", at: spec.location)
        let unit: any AudioUnit
        if let description = spec.unitDescription {
            guard let made = try instantiate(description, spec: spec) else { return nil }
            unit = made
        } else if case .subgraph(let name) = spec.source {
            unit = try makeSubgraph(name, for: spec, scope: scope, path: path, stack: stack)
        } else {
            preconditionFailure("a node is a unit or a subgraph")
        }
        if let file = spec.file, let loader = unit as? ContentLoading {
            // A bank that is missing or damaged loads as a placeholder, as a missing plugin does.
            let resolved = SessionLoader.resolve(file, in: scope.directory)
            if checkFiles {
                do { try loader.loadContent(path: resolved) } catch {
                    loader.keepContent(path: resolved)
                    warnings.append(SessionWarning(
                        "node \(quoted(spec.name)): \(error); it loads as a placeholder that keeps its settings and plays nothing",
                        at: spec.positions["file"] ?? spec.location))
                }
            } else {
                loader.keepContent(path: resolved)
            }
        } else if let file = spec.file {
            let resolved = SessionLoader.resolve(file, in: scope.directory)
            let location = spec.positions["file"] ?? spec.location
            if checkFiles, !FileChecks.isRegularFile(resolved) {
                throw SessionError("node \(quoted(spec.name)): \(unit is MIDIFilePlayer ? "MIDI" : "audio") file \(resolved) \(FileChecks.problem(resolved))", at: location)
            }
            if let player = unit as? MIDIFilePlayer, checkFiles {
                do { try player.load(path: resolved) } catch {
                    throw SessionError("node \(quoted(spec.name)): \(error)", at: location)
                }
                player.loopCount = spec.loops ?? 0
            }
            // The player takes the file's width before the node's own settings apply.
            if let player = unit as? FilePlayer, checkFiles {
                do { try player.load(path: resolved) } catch {
                    throw SessionError("node \(quoted(spec.name)): \(error)", at: location)
                }
                player.loopCount = spec.loops ?? 0
            }
            players.append(FilePlayerSpec(node: path, unit: unit, path: resolved, loops: spec.loops ?? 0, location: location))
        }
        try configure(unit, spec, path: path, directory: scope.directory)
        return unit
    }

    /// A fresh unit of the node's component; nil (and a warning) for a plugin that is
    /// not installed or would not load.
    private func instantiate(_ description: NodeDescription, spec: NodeSpec) throws(SessionError) -> (any AudioUnit)? {
        let location = spec.location(of: .unit)
        let component: Component
        do { component = try factory.component(named: description.unit) } catch {
            // A URI too long to be any plugin's is an error, not a placeholder to keep.
            if description.namesPlugin, description.unit.utf8.count <= ComponentRegistry.nameLimit {
                warnings.append(SessionWarning(
                    "node \(quoted(spec.name)): plugin \(description.unit) is not available (\(error)); it loads as a placeholder that "
                        + "keeps its settings and passes audio through where it can", at: location))
                return nil
            }
            throw SessionError("node \(quoted(spec.name)): \(error)", at: location)
        }
        do { return try factory.instantiate(component, key: description.unit) } catch {
            if description.namesPlugin || component.origin == .lv2 {
                let reason = if case .unitNotCreated(_, let reason) = error { "\(reason)" } else { "\(error)" }
                warnings.append(SessionWarning(
                    "node \(quoted(spec.name)): plugin \(description.unit) could not be loaded (\(reason)); it loads as a placeholder", at: location))
                return nil
            }
            throw SessionError("node \(quoted(spec.name)): \(error)", at: location)
        }
    }

    /// A factory error at the part of the node it is about.
    func error(_ error: UnitFactoryError, in spec: NodeSpec) -> SessionError {
        SessionError("node \(quoted(spec.name)): \(error)", at: spec.location(of: error.field))
    }

    private func makeSubgraph(_ name: String, for spec: NodeSpec, scope: Definitions, path: String, stack: [String]) throws(SessionError) -> any AudioUnit {
        let location = spec.positions["subgraph"] ?? spec.location
        guard let (definition, home) = scope.find(name) else {
            let hint = Suggestions.didYouMean(Suggestions.closest(to: name, among: scope.allNames))
            throw SessionError("node \(quoted(spec.name)): no subgraph named \(quoted(name))\(hint)", at: location)
        }
        let identity = home.file + "#" + name
        guard !stack.contains(identity) else {
            throw SessionError("node \(quoted(spec.name)): subgraph \(quoted(name)) contains itself", at: location)
        }
        subgraphCount += 1
        usedDefinitions.insert(identity)
        guard subgraphCount <= Self.subgraphLimit else {
            var failure = SessionError(
                "node \(quoted(path)): the session uses subgraphs more than \(Self.subgraphLimit) times (counting uses inside subgraphs)",
                at: location)
            failure.stopsReading = true
            throw failure
        }
        guard stack.count < Self.subgraphDepthLimit else {
            throw SessionError("node \(quoted(spec.name)): subgraphs nest more than \(Self.subgraphDepthLimit) deep here", at: location)
        }
        let inner: Built
        switch definition.definition {
        case .inline(let body):
            let innerScope = Definitions(subgraphs: body.subgraphs, parent: home, directory: home.directory, file: home.file)
            inner = try build(body, scope: innerScope, prefix: path + "/", stack: stack + [identity])
        case .file(let file):
            inner = try buildFile(file, definition: definition, home: home, path: path, stack: stack + [identity])
        }
        do {
            return try Subgraph(graph: inner.graph, name: spec.name)
        } catch {
            throw SessionError("subgraph \(quoted(name)) (used by node \(quoted(spec.name))): \(error); a subgraph needs one `output` node (none when it only sends MIDI, through `midi-outputs:`) and at most one `input` node", at: definition.location)
        }
    }

    /// Builds every subgraph definition no node used, in a throwaway graph, so an error
    /// in one is found before the day it is used (`validate`). Nested definitions of
    /// inline bodies are checked too; what they would play is not kept.
    func checkUnusedDefinitions(in scope: Definitions, stack: [String] = []) throws(SessionError) {
        let keptPlayers = players
        defer { players = keptPlayers }
        for definition in scope.subgraphs {
            let identity = scope.file + "#" + definition.name
            var innerScope: Definitions?
            if case .inline(let body) = definition.definition {
                innerScope = Definitions(subgraphs: body.subgraphs, parent: scope, directory: scope.directory, file: scope.file)
            }
            if !usedDefinitions.contains(identity) {
                usedDefinitions.insert(identity)
                let inner: Built
                switch definition.definition {
                case .inline(let body):
                    inner = try build(body, scope: innerScope!, prefix: definition.name + "/", stack: stack + [identity])
                case .file(let file):
                    inner = try buildFile(file, definition: definition, home: scope, path: definition.name, stack: stack + [identity])
                }
                do { _ = try Subgraph(graph: inner.graph, name: definition.name) } catch {
                    throw SessionError("subgraph \(quoted(definition.name)) (not used by any node): \(error); a subgraph needs one `output` node (none when it only sends MIDI, through `midi-outputs:`) and at most one `input` node", at: definition.location)
                }
            }
            if let innerScope { try checkUnusedDefinitions(in: innerScope, stack: stack + [identity]) }
        }
    }

    private func buildFile(_ file: String, definition: SubgraphSpec, home: Definitions, path: String, stack: [String]) throws(SessionError) -> Built {
        let location = definition.positions["file"] ?? definition.location
        let resolved = SessionLoader.resolve(file, in: home.directory)
        let identity = SessionLoader.standardized(resolved)
        guard !fileStack.contains(identity) else {
            throw SessionError("subgraph \(quoted(definition.name)): \(resolved) includes itself", at: location)
        }
        guard FileChecks.isRegularFile(resolved) else {
            throw SessionError("subgraph \(quoted(definition.name)): session file \(resolved) \(FileChecks.problem(resolved))", at: location)
        }
        let text = try SessionLoader.readSessionFile(resolved, at: location)
        // Any file may be named here; one that is not a session is never quoted.
        guard SessionLoader.hasVersionLine(text) else {
            throw SessionError(
                "subgraph \(quoted(definition.name)): \(resolved) is not a Trellis session: it has no top-level \"version:\" line (nothing of the file is shown)",
                at: location)
        }
        var document = try SessionParser.parse(text, file: resolved)
        // Its JACK MIDI ports become the subgraph's MIDI buses; the rest of jack: is the
        // file's own, for when it runs as a session.
        if let jack = document.jack {
            document.graph.midiInputs = jack.midiInputs
            document.graph.midiOutputs = jack.midiOutputs
            document.graph.positions["midi-inputs"] = jack.positions["midi-inputs"]
            document.graph.positions["midi-outputs"] = jack.positions["midi-outputs"]
        }
        if (document.jack.map { $0.client != nil || $0.cpuLatency != nil || !$0.inputs.isEmpty || !$0.outputs.isEmpty || !$0.connect.isEmpty } ?? false) || !document.recorders.isEmpty {
            warnings.append(SessionWarning("\(resolved) is used as subgraph \(quoted(definition.name)); its jack: (but for its MIDI ports, the subgraph's MIDI buses) and recorders: are ignored", at: location))
        }
        fileStack.append(identity)
        defer { fileStack.removeLast() }
        let scope = Definitions(subgraphs: document.graph.subgraphs, parent: nil, directory: SessionLoader.directoryOf(resolved), file: resolved)
        return try build(document.graph, scope: scope, prefix: path + "/", stack: stack)
    }

    /// A mono-in, mono-out unit that cannot be widened (an LV2 plugin with one audio port
    /// each way) runs once per channel, as a `MultiMonoUnit`, when the node asks for more
    /// channels or, saying nothing, is fed a wider bus (`channels: 1` keeps one instance).
    /// Repeated until nothing changes, so a chain of mono plugins widens link by link.
    private func runMonoUnitsPerChannel(_ body: GraphBody, prefix: String, units: inout [String: any AudioUnit]) throws(SessionError) {
        func sourceWidth(of spec: NodeSpec) -> Int? {
            guard let feed = body.connections.first(where: { $0.to.node == spec.name && $0.to.busIndex == 0 }),
                  let source = units[feed.from.node] else { return nil }
            return try? source.format(scope: .output, element: feed.from.busIndex).channelCount
        }
        var changed = true
        while changed {
            changed = false
            for spec in body.nodes {
                guard let description = spec.unitDescription, let unit = units[spec.name], factory.runsPerChannel(unit, description),
                      let width = spec.channels ?? sourceWidth(of: spec), width > 1
                else { continue }
                do { units[spec.name] = try factory.widen(unit, description, to: width) } catch { throw self.error(error, in: spec) }
                changed = true
            }
        }
    }

    /// A placeholder shaped by the connections the body makes to it: a connection
    /// written as MIDI, or whose other end is a MIDI port or has MIDI and no audio on
    /// that side, gives it a MIDI bus.
    private func placeholder(
        for spec: NodeSpec, body: GraphBody, units: [String: any AudioUnit], midiPorts: [String]
    ) -> PlaceholderUnit {
        let width = spec.channels ?? 2
        var inputs = Array(repeating: spec.inputChannels ?? width, count: spec.inputs ?? 1)
        var outputs = Array(repeating: spec.outputChannels ?? width, count: spec.outputs ?? 1)
        var midiInputs = 0, midiOutputs = 0
        func isMIDI(_ connection: ConnectionSpec) -> Bool {
            if connection.from.midi || connection.to.midi { return true }
            let into = connection.to.node == spec.name
            let other = into ? connection.from.node : connection.to.node
            if midiPorts.contains(other) { return true }
            guard let unit = units[other] else { return false }
            let scope: Scope = into ? .output : .input
            return unit.midiBusCount(scope) > 0 && unit.elementCount(scope) == 0
        }
        for connection in body.connections {
            if isMIDI(connection) {
                if connection.to.node == spec.name { midiInputs = max(midiInputs, connection.to.busIndex + 1) }
                if connection.from.node == spec.name { midiOutputs = max(midiOutputs, connection.from.busIndex + 1) }
                continue
            }
            if connection.to.node == spec.name {
                let bus = connection.to.busIndex
                while inputs.count <= bus { inputs.append(spec.inputChannels ?? width) }
                if spec.inputChannels == nil && spec.channels == nil, let source = units[connection.from.node],
                   let format = try? source.format(scope: .output, element: connection.from.busIndex) {
                    inputs[bus] = format.channelCount
                }
            }
            if connection.from.node == spec.name {
                let bus = connection.from.busIndex
                while outputs.count <= bus { outputs.append(spec.outputChannels ?? width) }
                if spec.outputChannels == nil && spec.channels == nil, let destination = units[connection.to.node],
                   let format = try? destination.format(scope: .input, element: connection.to.busIndex) {
                    outputs[bus] = format.channelCount
                }
            }
        }
        return PlaceholderUnit(
            spec: spec, reason: warnings.last?.message ?? "", inputs: inputs, outputs: outputs,
            midiInputs: midiInputs, midiOutputs: midiOutputs)
    }
}
