import TrellisCore
import TrellisEngine
import TrellisUnits

/// A processing graph: Core Audio's AUGraph. Nodes hold units; connections join one
/// output bus to one input bus; a generic output node is what a backend pulls.
///
/// Every edit is a transaction. While the graph is initialized, an edit is prepared
/// (validated, compiled, allocated) here, committed by one pointer swap on the audio
/// thread, and finished (the old program freed) back here. An edit that fails leaves
/// the graph and the running program as they were.
///
/// Thread: control. One control thread at a time edits a graph; the engine's render
/// runs on the audio thread.
public final class Graph: @unchecked Sendable {
    struct Model {
        var nodes: [NodeID: Node] = [:]
        /// Node names to ids: a name is checked and found in constant time.
        var names: [String: NodeID] = [:]
        var order: [NodeID] = []
        /// Changed only through the methods in GraphModel+Connections.swift, which keep
        /// the indexes below in step.
        var connections: [Connection] = []
        var midiConnections: [MIDIConnection] = []
        var byDestination: [BusKey: Connection] = [:]
        var bySource: [BusKey: Connection] = [:]
        var midiSet: Set<MIDIConnection> = []
        var outgoing: [NodeID: [NodeID]] = [:]
        var observers: [ObserverEntry] = []
        /// Parameter lanes by node and parameter index.
        var automation: [NodeID: [Int: ParameterLane]] = [:]
        /// Controllers mapped to parameters and bypasses.
        var controllerMappings: [ControllerMapping] = []
        var nextID = 1
    }

    struct ObserverEntry {
        var token: ObserverToken
        var node: NodeID
        var bus: Int
        var observer: any BusObserver
    }

    public let registry: ComponentRegistry
    public private(set) var sampleRate: Double
    public private(set) var maximumFrames: Int
    /// What a backend pulls. Its program changes with every committed edit.
    public let engine: RenderEngine
    public private(set) var isInitialized = false
    /// The most a compiled program may allocate (`RenderProgram.footprint`), in bytes: a
    /// load or edit whose program would need more is refused before anything is
    /// allocated. Thread: control.
    public var memoryBudget = Graph.defaultMemoryBudget
    public static let defaultMemoryBudget = 1_000_000_000
    /// The plan of the program last published.
    public private(set) var plan: ProgramPlan? {
        didSet { latencyWatch = plan?.compensatedLatencies.map { ($0.unit, $0.frames) } ?? [] }
    }
    /// The plan's units and the latency it compensates for each, without their names:
    /// what `latencyChanges` reads before each slice of a render.
    private var latencyWatch: [(unit: any AudioUnit, frames: Int)] = []
    var model = Model() {
        didSet { revision &+= 1 }
    }
    /// Moves with every change of the nodes, connections or observers: a reader that
    /// keeps what it looked up looks again when this has moved. Thread: control.
    public private(set) var revision: UInt64 = 0
    private var batchDepth = 0
    /// False while a loader adds many connections and looks for feedback once, over
    /// all of them (`GraphBuilder`): a search per connection made loading quadratic.
    /// Whoever clears it must find any cycle itself before the graph is initialized.
    public var checksFeedback = true
    /// The program last published, whose delay lines the next one carries on.
    private var published: RenderProgram?
    /// The ticket of the program last published.
    private var lastTicket: ProgramTicket?
    /// What measuring decided before the published program was compiled for one thread
    /// (`compileForOneThreadIfSettled`); nil once an edit compiles a schedule again.
    private var settledReport: ScheduleReport?
    /// When each isolated unit last restarted by itself (`restartFailedUnits`).
    var automaticRestarts: [UInt64: UInt64] = [:]

    /// `registry` is where `addNode(named:)` finds units: the caller's choice, such as the
    /// built-in units (`BuiltInUnits.registry()`) or those and the installed plugins.
    /// `engine` lets a new graph take over a running backend: its first program replaces
    /// the old graph's at a cycle boundary, which is how a session is swapped glitch-free.
    public init(
        registry: ComponentRegistry, sampleRate: Double = 48_000, maximumFrames: Int = 1024,
        engine: RenderEngine = RenderEngine()
    ) {
        self.registry = registry
        self.sampleRate = sampleRate
        self.maximumFrames = maximumFrames
        self.engine = engine
    }

    // MARK: - Reading

    /// The nodes in the order they were added.
    public var nodes: [Node] { model.order.map { model.nodes[$0]! } }
    public var connections: [Connection] { model.connections }
    public var midiConnections: [MIDIConnection] { model.midiConnections }

    public func node(_ id: NodeID) throws(GraphError) -> Node {
        guard let node = model.nodes[id] else { throw .unknownNode(id) }
        return node
    }

    public func node(named name: String) throws(GraphError) -> Node {
        if let id = model.names[name], let node = model.nodes[id] { return node }
        throw .unknownNodeName(name, suggestions: Suggestions.closest(to: name, among: model.nodes.values.map(\.name)))
    }

    public func unit(_ id: NodeID) throws(GraphError) -> any AudioUnit { try node(id).unit }

    /// Frames from the graph's input to its output along the slowest path, as compiled.
    public var latency: Int { plan?.latency ?? 0 }

    /// The compiled program as readable text, with its schedule when several threads
    /// may run it.
    public var programListing: String { published?.listing ?? "(not compiled)" }

    /// How the program's schedule runs now (nil: one thread). Thread: control.
    public var scheduleReport: ScheduleReport? { published?.scheduleReport ?? settledReport }

    // MARK: - Nodes

    /// Adds a unit. `name` defaults to the unit's short name and a number.
    @discardableResult
    public func addNode(_ unit: any AudioUnit, name: String? = nil) throws(GraphError) -> NodeID {
        var added = NodeID(rawValue: 0)
        try edit { model throws(GraphError) in
            let nodeName = name ?? Self.defaultName(for: unit, in: model)
            guard model.names[nodeName] == nil else { throw .duplicateNodeName(nodeName) }
            added = NodeID(rawValue: model.nextID)
            model.nextID += 1
            model.nodes[added] = Node(id: added, name: nodeName, unit: unit)
            model.names[nodeName] = added
            model.order.append(added)
        }
        return added
    }

    /// Adds a unit found in the registry by short name, `type:subtype:manufacturer`, or URI.
    @discardableResult
    public func addNode(named key: String, name: String? = nil) throws(GraphError) -> NodeID {
        let unit: any AudioUnit
        do { unit = try registry.instantiate(named: key) } catch { throw .registry(error) }
        return try addNode(unit, name: name)
    }

    /// Adds a unit found in the registry by description.
    @discardableResult
    public func addNode(_ description: ComponentDescription, name: String? = nil) throws(GraphError) -> NodeID {
        let component: Component
        do { component = try registry.component(matching: description) } catch { throw .registry(error) }
        let unit: any AudioUnit
        do { unit = try registry.instantiate(component) } catch {
            throw .registry(.instantiationFailed(component.shortName, error))
        }
        return try addNode(unit, name: name)
    }

    /// Removes a node and every connection to or from it.
    public func removeNode(_ id: NodeID) throws(GraphError) {
        try edit { model throws(GraphError) in
            guard let node = model.nodes[id] else { throw .unknownNode(id) }
            model.nodes[id] = nil
            model.names[node.name] = nil
            model.order.removeAll { $0 == id }
            model.removeConnections(of: id)
            model.observers.removeAll { $0.node == id }
            model.automation[id] = nil
            model.controllerMappings.removeAll { $0.node == id }
        }
    }

    /// Puts another unit in a node's place, keeping its name and connections.
    public func replaceUnit(of id: NodeID, with unit: any AudioUnit) throws(GraphError) {
        try edit { model throws(GraphError) in
            guard let node = model.nodes[id] else { throw .unknownNode(id) }
            var trial = model
            trial.nodes[id] = Node(id: id, name: node.name, unit: unit)
            for connection in trial.connections where connection.source == id || connection.destination == id {
                try Self.checkElements(connection, in: trial)
            }
            for connection in trial.midiConnections where connection.source == id || connection.destination == id {
                try Self.checkMIDIElements(connection, in: trial)
            }
            model = trial
        }
    }

    // MARK: - Connections

    /// Connects output `sourceBus` of `source` to input `destinationBus` of `destination`.
    public func connect(
        _ source: NodeID, _ sourceBus: Int = 0, to destination: NodeID, _ destinationBus: Int = 0, converting: Bool = false
    ) throws(GraphError) {
        let connection = Connection(source: source, sourceBus: sourceBus, destination: destination, destinationBus: destinationBus, converts: converting)
        try edit { model throws(GraphError) in
            try Self.checkElements(connection, in: model)
            let from = Self.endpoint(connection.source, .output, connection.sourceBus, model)
            let to = Self.endpoint(connection.destination, .input, connection.destinationBus, model)
            if let existing = model.connection(outOf: source, sourceBus) {
                throw .fanOut(source: from, feeds: Self.endpoint(existing.destination, .input, existing.destinationBus, model), attempted: to)
            }
            if let existing = model.connection(into: destination, destinationBus) {
                throw .inputTaken(destination: to, by: Self.endpoint(existing.source, .output, existing.sourceBus, model))
            }
            if checksFeedback, let path = Self.path(from: destination, to: source, in: model) {
                throw .feedback(cycle: ([source] + path).map { model.nodes[$0]!.name })
            }
            model.add(connection)
        }
    }

    /// Removes the connection into an input bus.
    public func disconnect(_ destination: NodeID, _ destinationBus: Int = 0) throws(GraphError) {
        try edit { model throws(GraphError) in
            guard model.nodes[destination] != nil else { throw .unknownNode(destination) }
            guard model.removeConnection(into: destination, destinationBus) else {
                throw .notConnected(Self.endpoint(destination, .input, destinationBus, model))
            }
        }
    }

    /// Connects MIDI output `sourceBus` of `source` to MIDI input `destinationBus` of
    /// `destination`. An output may feed several inputs and an input hear several
    /// outputs; the one connection may not be made twice, nor a cycle.
    public func connectMIDI(_ source: NodeID, _ sourceBus: Int = 0, to destination: NodeID, _ destinationBus: Int = 0) throws(GraphError) {
        let connection = MIDIConnection(source: source, sourceBus: sourceBus, destination: destination, destinationBus: destinationBus)
        try edit { model throws(GraphError) in
            try Self.checkMIDIElements(connection, in: model)
            guard !model.hasMIDI(connection) else {
                throw .alreadyConnected(
                    from: Self.endpoint(source, .output, sourceBus, model, midi: true),
                    to: Self.endpoint(destination, .input, destinationBus, model, midi: true))
            }
            if checksFeedback, let path = Self.path(from: destination, to: source, in: model) {
                throw .feedback(cycle: ([source] + path).map { model.nodes[$0]!.name })
            }
            model.add(connection)
        }
    }

    /// Whether `source -> destination`, written without saying which kind of bus, joins
    /// MIDI buses: when the source has MIDI outputs and no audio ones, or the destination
    /// MIDI inputs and no audio ones (`keys -> piano`, `fifths -> piano`). Sessions,
    /// `ctl connect` and `trellis chain` all read connections by this one rule.
    public func impliesMIDI(from source: NodeID, to destination: NodeID) -> Bool {
        guard let from = model.nodes[source]?.unit, let to = model.nodes[destination]?.unit else { return false }
        return (from.midiBusCount(.output) > 0 && from.elementCount(.output) == 0)
            || (to.midiBusCount(.input) > 0 && to.elementCount(.input) == 0)
    }

    /// Removes one MIDI connection.
    public func disconnectMIDI(_ source: NodeID, _ sourceBus: Int = 0, from destination: NodeID, _ destinationBus: Int = 0) throws(GraphError) {
        let connection = MIDIConnection(source: source, sourceBus: sourceBus, destination: destination, destinationBus: destinationBus)
        try edit { model throws(GraphError) in
            try Self.checkMIDIElements(connection, in: model)
            guard model.remove(connection) else {
                throw .notConnected(Self.endpoint(destination, .input, destinationBus, model, midi: true))
            }
        }
    }

    // MARK: - Observers

    /// Shows output `bus` of `node` to `observer` every cycle, from the next program on:
    /// how taps, meters and recorders watch a bus without being in its path.
    @discardableResult
    public func addObserver(_ observer: any BusObserver, node: NodeID, bus: Int = 0) throws(GraphError) -> ObserverToken {
        var token = ObserverToken(rawValue: 0)
        try edit { model throws(GraphError) in
            guard let found = model.nodes[node] else { throw .unknownNode(node) }
            let outputs = found.unit.elementCount(.output)
            guard bus >= 0 && bus < outputs else {
                throw .invalidElement(Self.endpoint(node, .output, bus, model), available: outputs)
            }
            token = ObserverToken(rawValue: model.nextID)
            model.nextID += 1
            model.observers.append(ObserverEntry(token: token, node: node, bus: bus, observer: observer))
        }
        return token
    }

    /// Whether `token`'s observer still watches its bus (removing its node removes it).
    public func hasObserver(_ token: ObserverToken) -> Bool {
        model.observers.contains { $0.token == token }
    }

    /// Stops showing a bus to an observer. The observer stays alive until the program
    /// that used it has been retired.
    public func removeObserver(_ token: ObserverToken) throws(GraphError) {
        for (_, inner) in innerGraphs { inner.model.observers.removeAll { $0.token == token } }
        try edit { model throws(GraphError) in
            model.observers.removeAll { $0.token == token }
        }
    }

    /// Compiles and publishes the program again: after a change the model does not
    /// see, such as a subgraph node's bypass. Thread: control.
    public func recompile() throws(GraphError) {
        try edit { _ in }
    }

    // MARK: - Life cycle

    /// Configures every unit for the graph's rate and slice size, initializes them all
    /// (one-step instantiation), compiles and publishes the program. Thread: control.
    public func initialize() throws(GraphError) {
        guard !isInitialized else { return }
        try commitProgram()
        isInitialized = true
        engine.changeTransport(.sampleRate(sampleRate))
    }

    /// Stops publishing and uninitializes every unit, once the audio thread has let go
    /// of every program that uses them: a backend that still pulls hears silence, never
    /// an uninitialized unit. Waiting ends at the next cycle, or at once while no
    /// backend cycles (see `ProgramTicket.wait`). Thread: control.
    public func uninitialize() {
        guard isInitialized else { return }
        engine.publish(RenderProgram(plan: ProgramPlan(), maximumFrames: maximumFrames)).wait()
        published = nil
        plan = nil
        for node in nodes {
            (node.unit as? AudioUnitBase)?.routeParameterChanges(to: nil)
            node.unit.uninitialize()
        }
        isInitialized = false
    }

    /// Changes the sample rate and slice size, re-initializing every unit after the
    /// audio thread let go of them (see `uninitialize`). Thread: control.
    public func reconfigure(sampleRate: Double, maximumFrames: Int) throws(GraphError) {
        let wasInitialized = isInitialized
        uninitialize()
        self.sampleRate = sampleRate
        self.maximumFrames = maximumFrames
        if wasInitialized { try initialize() }
    }

    /// What a backend calls before its first cycle and whenever its period or rate
    /// changes: a new program is compiled for the new slice size and swapped in; a new
    /// rate, or a period larger than the units were initialized for, re-initializes
    /// them (the backend is not cycling then). Thread: control or the backend's
    /// notification thread, never audio.
    public func prepare(frames: Int, sampleRate: Double) throws(GraphError) {
        if sampleRate != self.sampleRate || frames > maximumFrames {
            try reconfigure(sampleRate: sampleRate, maximumFrames: max(frames, maximumFrames))
            if !isInitialized { try initialize() }
            return
        }
        if !isInitialized {
            try initialize()
        } else {
            try commitProgram()
        }
    }

    /// Waits until the audio thread plays the program of the last committed edit, or
    /// `timeout` passes; true when it does (or nothing was published). While no backend
    /// cycles it is adopted at once (see `ProgramTicket.wait`). Thread: control.
    @discardableResult
    public func waitUntilPlaying(timeout: Duration) -> Bool {
        lastTicket?.wait(timeout: timeout) ?? true
    }

    /// Runs `body`'s edits as one transaction: compiled once at the end, or not at all
    /// if any edit or the compilation fails, in which case the graph is as before.
    public func transaction(_ body: () throws(GraphError) -> Void) throws(GraphError) {
        let snapshot = model
        batchDepth += 1
        do {
            try body()
        } catch {
            batchDepth -= 1
            model = snapshot
            throw error
        }
        batchDepth -= 1
        guard batchDepth == 0, isInitialized else { return }
        do { try commitProgram() } catch {
            model = snapshot
            throw error
        }
    }

    /// Sets a parameter of a node, named as every path names it (`parameter(named:)`),
    /// through the unit's one control-side change: while rendering it lands on the audio
    /// thread at the next cycle, ramped over `rampFrames`. Thread: any but audio.
    public func setParameter(_ node: NodeID, _ identifier: String, _ value: Float, rampFrames: Int = 0) throws(GraphError) {
        try changeParameter(node, identifier, value, rampFrames: rampFrames, atSampleTime: nil)
    }

    /// Schedules a parameter change for the exact frame `sampleTime` of the render
    /// clock, ramped linearly over `rampFrames`. Needs a rendering engine (a backend
    /// running); otherwise the change is made at once. Thread: any but audio.
    public func scheduleParameter(
        _ node: NodeID, _ identifier: String, _ value: Float, atSampleTime sampleTime: Int64, rampFrames: Int = 0
    ) throws(GraphError) {
        try changeParameter(node, identifier, value, rampFrames: rampFrames, atSampleTime: sampleTime)
    }

    private func changeParameter(_ node: NodeID, _ identifier: String, _ value: Float, rampFrames: Int, atSampleTime sampleTime: Int64?) throws(GraphError) {
        let found = try self.node(node)
        do {
            let info = try found.unit.parameter(named: identifier)
            try found.unit.setParameter(info.address, value, rampFrames: rampFrames, atSampleTime: sampleTime)
        } catch { throw .unit(node: found.name, error) }
    }

    // MARK: - Latency

    /// The units whose latency is not what the published program compensates: a plugin
    /// that reports another latency once it runs, or after a parameter or state change.
    /// Thread: control.
    public var latencyChanges: [LatencyChange] {
        guard latencyWatch.contains(where: { max(0, $0.unit.latencyFrames) != $0.frames }),
              let entries = plan?.compensatedLatencies else { return [] }
        var changes: [LatencyChange] = []
        for entry in entries {
            let now = max(0, entry.unit.latencyFrames)
            if now != entry.frames { changes.append(LatencyChange(node: entry.node, unit: entry.unit, from: entry.frames, to: now)) }
        }
        return changes
    }

    /// Compiles and publishes a program that compensates the units' latencies as they
    /// are now, if any changed; returns the changes. The delay lines that keep their
    /// length keep their contents. Thread: control.
    @discardableResult
    public func compensateLatencyChanges() throws(GraphError) -> [LatencyChange] {
        let changes = latencyChanges
        if !changes.isEmpty { try commitProgram() }
        return changes
    }

    /// Compiles the graph again as one thread's program (buffers reused, no schedule)
    /// once its schedule settled on one thread for good: without the schedule's own
    /// buffers, a small graph's cycle touches less memory. The next edit measures
    /// again. Returns whether it compiled. Thread: control.
    @discardableResult
    public func compileForOneThreadIfSettled() throws(GraphError) -> Bool {
        guard isInitialized, settledReport == nil, let report = published?.scheduleReport, report.isSettled else { return false }
        try commitProgram(settled: report)
        return true
    }

    // MARK: - Internals

    /// Every edit checks before it changes anything, so one it refuses leaves the model
    /// as it was; the copy taken here is for a compilation that fails. Building a graph
    /// (not initialized yet) copies nothing, so it stays linear in the number of nodes.
    func edit(_ change: (inout Model) throws(GraphError) -> Void) throws(GraphError) {
        AudioThread.assertNotCurrent("Graph edits")
        let compiles = batchDepth == 0 && isInitialized
        let snapshot = compiles ? model : nil
        try change(&model)
        guard compiles, let snapshot else { return }
        do { try commitProgram() } catch {
            model = snapshot
            throw error
        }
    }

    /// Prepare (configure, initialize, compile, allocate), commit (publish), finish
    /// (route parameters, reclaim what the audio thread let go of).
    private func commitProgram(settled: ScheduleReport? = nil) throws(GraphError) {
        for node in nodes { try configure(node) }
        let parallelism = settled == nil ? engine.parallelism : .off
        let plan = try GraphCompiler(graph: self, reusesBuffers: parallelism.threads == 1).compile()
        let footprint = RenderProgram.footprint(of: plan, maximumFrames: maximumFrames)
        guard footprint <= memoryBudget else {
            throw .overBudget(bytes: footprint, budget: memoryBudget, nodes: plan.units.count, frames: maximumFrames)
        }
        let program = RenderProgram(plan: plan, maximumFrames: maximumFrames, continuing: published, parallelism: parallelism)
        lastTicket = engine.publish(program)
        published = program
        settledReport = settled
        self.plan = plan
        for unit in plan.units.map(\.unit) { (unit as? AudioUnitBase)?.routeParameterChanges(to: engine) }
        engine.collectRetired()
    }

    /// Sets a unit's rate and slice size and initializes it, unless it already runs so.
    func configure(_ node: Node) throws(GraphError) {
        let unit = node.unit
        do {
            let rateMatches = (0..<unit.elementCount(.output)).allSatisfy { (try? unit.format(scope: .output, element: $0).sampleRate) == sampleRate }
                && (0..<unit.elementCount(.input)).allSatisfy { (try? unit.format(scope: .input, element: $0).sampleRate) == sampleRate }
            if unit.isInitialized && rateMatches && unit.maximumFramesPerSlice >= maximumFrames { return }
            unit.uninitialize()
            for scope in [Scope.input, .output] {
                for element in 0..<unit.elementCount(scope) {
                    var format = try unit.format(scope: scope, element: element)
                    format.sampleRate = sampleRate
                    try unit.setFormat(format, scope: scope, element: element)
                }
            }
            try unit.setProperty(.maximumFramesPerSlice, .int(maximumFrames), scope: .global, element: 0)
            if let subgraph = unit as? Subgraph { try subgraph.graph.prepareAsSubgraph(sampleRate: sampleRate, maximumFrames: maximumFrames) }
            try unit.initialize()
        } catch let error as GraphError {
            throw error
        } catch let error as AudioUnitError {
            throw .unit(node: node.name, error)
        } catch {
            throw .subgraph(node: node.name, reason: "\(error)")
        }
    }

    /// Configures and initializes the units of a graph used inside another.
    func prepareAsSubgraph(sampleRate: Double, maximumFrames: Int) throws(GraphError) {
        self.sampleRate = sampleRate
        self.maximumFrames = maximumFrames
        for node in nodes { try configure(node) }
    }

    static func defaultName(for unit: any AudioUnit, in model: Model) -> String {
        let base = (unit as? AudioUnitBase)?.shortName ?? unit.componentDescription.subtype.description.trimmingCharacters(in: " ")
        var number = 1
        while model.names["\(base)\(number)"] != nil { number += 1 }
        return "\(base)\(number)"
    }

    static func endpoint(_ id: NodeID, _ scope: Scope, _ bus: Int, _ model: Model, midi: Bool = false) -> Endpoint {
        Endpoint(node: model.nodes[id]?.name ?? id.description, scope: scope, bus: bus, isMIDI: midi)
    }

    static func checkMIDIElements(_ connection: MIDIConnection, in model: Model) throws(GraphError) {
        guard let source = model.nodes[connection.source] else { throw .unknownNode(connection.source) }
        guard let destination = model.nodes[connection.destination] else { throw .unknownNode(connection.destination) }
        let outputs = source.unit.midiBusCount(.output)
        guard connection.sourceBus >= 0 && connection.sourceBus < outputs else {
            throw .invalidElement(endpoint(connection.source, .output, connection.sourceBus, model, midi: true), available: outputs)
        }
        let inputs = destination.unit.midiBusCount(.input)
        guard connection.destinationBus >= 0 && connection.destinationBus < inputs else {
            throw .invalidElement(endpoint(connection.destination, .input, connection.destinationBus, model, midi: true), available: inputs)
        }
    }

    static func checkElements(_ connection: Connection, in model: Model) throws(GraphError) {
        guard let source = model.nodes[connection.source] else { throw .unknownNode(connection.source) }
        guard let destination = model.nodes[connection.destination] else { throw .unknownNode(connection.destination) }
        let outputs = source.unit.elementCount(.output)
        guard connection.sourceBus >= 0 && connection.sourceBus < outputs else {
            throw .invalidElement(endpoint(connection.source, .output, connection.sourceBus, model), available: outputs)
        }
        let inputs = destination.unit.elementCount(.input)
        guard connection.destinationBus >= 0 && connection.destinationBus < inputs else {
            throw .invalidElement(endpoint(connection.destination, .input, connection.destinationBus, model), available: inputs)
        }
    }

    /// A path of nodes from `start` to `goal` along connections, if one exists.
    static func path(from start: NodeID, to goal: NodeID, in model: Model) -> [NodeID]? {
        shortestPath(from: start, to: goal) { model.downstream(of: $0) }
    }

    /// The shortest path of nodes from `start` to `goal`, both included, where `next`
    /// gives the nodes a node leads to (breadth first); nil when `goal` is out of reach.
    public static func shortestPath(from start: NodeID, to goal: NodeID, next: (NodeID) -> [NodeID]) -> [NodeID]? {
        if start == goal { return [start] }
        var previous: [NodeID: NodeID] = [:]
        var queue = [start]
        var head = 0
        var visited: Set<NodeID> = [start]
        while head < queue.count {
            let node = queue[head]
            head += 1
            for destination in next(node) where !visited.contains(destination) {
                visited.insert(destination)
                previous[destination] = node
                if destination == goal {
                    var path = [goal]
                    while let step = previous[path[0]] { path.insert(step, at: 0) }
                    return path
                }
                queue.append(destination)
            }
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(self.filter { $0 != set })
    }
}
