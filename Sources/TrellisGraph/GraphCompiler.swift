import TrellisCore
import TrellisEngine
import TrellisUnits

/// Turns a graph into a flat program: subgraphs inlined, nodes in topological order,
/// formats checked, latency compensated with inserted delays, and buffers reused as
/// soon as their last reader has run, so memory grows with the graph's width. For a
/// program that several threads run, buffers are not reused: a buffer shared by two
/// branches would order them (see `TaskGraph`).
struct GraphCompiler {
    let graph: Graph
    var reusesBuffers = true

    /// A graph being flattened, and where it sits inside its parent.
    final class Context {
        let graph: Graph
        let prefix: String
        let parent: Context?
        let nodeInParent: NodeID?
        var children: [NodeID: Context] = [:]

        init(graph: Graph, prefix: String, parent: Context?, nodeInParent: NodeID?) {
            self.graph = graph
            self.prefix = prefix
            self.parent = parent
            self.nodeInParent = nodeInParent
        }

        /// Lets go of the children, all the way down: a child holds its parent, so the
        /// two would otherwise keep each other (and their graphs) alive.
        func releaseChildren() {
            for child in children.values { child.releaseChildren() }
            children = [:]
        }

        func name(_ id: NodeID) -> String { prefix + (graph.model.nodes[id]?.name ?? id.description) }
        var isTop: Bool { parent == nil }
        /// This is a bypassed subgraph node's graph.
        var isBypassed: Bool {
            guard let parent, let nodeInParent else { return false }
            return parent.graph.model.nodes[nodeInParent]?.unit.isBypassed ?? false
        }
    }

    enum Role: Equatable {
        case unit, input, output
        case midiInputPort(Int), midiOutputPort(Int)
    }

    /// A MIDI output bus of a flat node feeding MIDI input `bus` of another.
    struct FlatMIDISource {
        var node: Int
        var sourceBus: Int
        var bus: Int
    }

    struct FlatSource {
        var node: Int
        var bus: Int
        var converts: Bool
        var from: Endpoint
    }

    struct FlatNode {
        var unit: any AudioUnit
        var name: String
        var role: Role
        var context: Context
        var id: NodeID
        var inputs: [FlatSource?] = []
        var midiInputs: [FlatMIDISource] = []
    }

    private final class State {
        var nodes: [FlatNode] = []
        var index: [ObjectIdentifier: [NodeID: Int]] = [:]
        /// `midiProducers` found so far, by context, node and bus: nested fan-in would
        /// otherwise be walked once per path.
        var midiProducers: [MIDIEnd: [MIDIProducer]] = [:]
    }

    private struct MIDIEnd: Hashable {
        var context: ObjectIdentifier
        var node: NodeID
        var bus: Int
    }

    private struct MIDIProducer: Hashable {
        var node: Int
        var bus: Int
    }

    func compile() throws(GraphError) -> ProgramPlan {
        let state = State()
        let top = Context(graph: graph, prefix: "", parent: nil, nodeInParent: nil)
        defer { top.releaseChildren() }
        try collect(top, state, depth: 0)
        for position in state.nodes.indices {
            let node = state.nodes[position]
            var inputs: [FlatSource?] = []
            for bus in 0..<inputCount(of: node) {
                inputs.append(try resolveInput(node.context, node.id, bus, state))
            }
            state.nodes[position].inputs = inputs
            state.nodes[position].midiInputs = try resolveMIDIInputs(node.context, node.id, state)
        }
        let outputs = state.nodes.filter { $0.role == .output }
        let sendsMIDI = state.nodes.contains { if case .midiOutputPort = $0.role { true } else { false } }
        guard !outputs.isEmpty || sendsMIDI else { throw .noOutputNode }
        guard outputs.count <= 1 else { throw .multipleOutputNodes(outputs.map(\.name)) }
        let inputs = state.nodes.filter { $0.role == .input }
        guard inputs.count <= 1 else { throw .multipleInputNodes(inputs.map(\.name)) }
        try checkFormats(state.nodes)
        try linkRates(state.nodes)
        let order = try topologicalOrder(state.nodes)
        var observed: [Int: [(bus: Int, observer: any BusObserver, watches: String)]] = [:]
        // Observers on nodes inside subgraphs (`meter strip/trim`) as well as on this graph's.
        var contexts = [top]
        while let context = contexts.popLast() {
            contexts += context.children.values
            for entry in context.graph.model.observers {
                let from = Endpoint(node: context.name(entry.node), scope: .output, bus: entry.bus)
                guard let source = try resolveSource(context, entry.node, entry.bus, from: from, state) else { continue }
                observed[source.node, default: []].append((source.bus, entry.observer, from.description))
            }
        }
        var result = try plan(state.nodes, order: order, observed: observed)
        result.automation = graph.plannedAutomation
        result.midiMappings = graph.plannedMIDIMappings
        return result
    }

    /// Each time-changing unit gets the source that feeds it directly, if that source
    /// can be read at another rate (see `RateFollowing`) and no rate converter stands
    /// between them (a channel map does not matter).
    private func linkRates(_ nodes: [FlatNode]) throws(GraphError) {
        func rate(_ unit: any AudioUnit, _ scope: Scope, _ bus: Int) -> Double? { try? unit.format(scope: scope, element: bus).sampleRate }
        for node in nodes {
            guard let follower = node.unit as? RateFollowing else { continue }
            let source = node.inputs.first.flatMap { $0 }.flatMap { input -> (any RateSource)? in
                let unit = nodes[input.node].unit
                if input.converts, rate(unit, .output, input.bus) != rate(node.unit, .input, 0) { return nil }
                return unit as? RateSource
            }
            do { try follower.link(to: source) } catch { throw .unit(node: node.name, error) }
        }
    }

    private func inputCount(of node: FlatNode) -> Int {
        node.role == .unit || node.role == .output ? node.unit.elementCount(.input) : 0
    }

    // MARK: - Flattening

    private func collect(_ context: Context, _ state: State, depth: Int) throws(GraphError) {
        guard depth < 32 else { throw .subgraph(node: context.prefix, reason: "subgraphs nest more than 32 deep (does one contain itself?)") }
        var table: [NodeID: Int] = [:]
        let nodes = context.graph.nodes
        if !context.isTop {
            let parentName = context.parent!.name(context.nodeInParent!)
            let outputs = nodes.filter { $0.unit.role == .graphOutput }
            let sendsMIDI = nodes.contains { if case .midiOutputPort = $0.unit.role { true } else { false } }
            guard outputs.count == 1 || (outputs.isEmpty && sendsMIDI) else {
                throw .subgraph(node: parentName, reason: outputs.isEmpty ? "it has no output node" : "it has \(outputs.count) output nodes")
            }
            let inputs = nodes.filter { $0.unit.role == .graphInput }
            guard inputs.count <= 1 else { throw .subgraph(node: parentName, reason: "it has \(inputs.count) input nodes") }
        }
        for node in nodes {
            if let subgraph = node.unit as? Subgraph {
                let child = Context(graph: subgraph.graph, prefix: context.name(node.id) + "/", parent: context, nodeInParent: node.id)
                context.children[node.id] = child
                try collect(child, state, depth: depth + 1)
                continue
            }
            let isOutput = node.unit.role == .graphOutput
            let isInput = node.unit.role == .graphInput
            let isMIDIPort = switch node.unit.role { case .midiInputPort, .midiOutputPort: true; default: false }
            // The boundaries of a subgraph, audio and MIDI, are aliases of its node's buses.
            if !context.isTop, isOutput || isInput || isMIDIPort { continue }
            let role: Role = switch node.unit.role {
            case .graphOutput: .output
            case .graphInput: .input
            case .midiInputPort(let port): .midiInputPort(port)
            case .midiOutputPort(let port): .midiOutputPort(port)
            case .processor: .unit
            }
            table[node.id] = state.nodes.count
            state.nodes.append(FlatNode(unit: node.unit, name: context.name(node.id), role: role, context: context, id: node.id))
        }
        state.index[ObjectIdentifier(context), default: [:]].merge(table) { $1 }
    }

    /// What feeds input `bus` of node `id` in `context`, through any subgraph boundaries.
    private func resolveInput(_ context: Context, _ id: NodeID, _ bus: Int, _ state: State) throws(GraphError) -> FlatSource? {
        guard let connection = context.graph.model.connection(into: id, bus) else {
            return nil
        }
        let from = Endpoint(node: context.name(connection.source), scope: .output, bus: connection.sourceBus)
        guard var source = try resolveSource(context, connection.source, connection.sourceBus, from: from, state) else { return nil }
        source.converts = source.converts || connection.converts
        return source
    }

    /// What feeds the MIDI inputs of node `id` in `context`, through any subgraph
    /// boundaries: a subgraph's MIDI ports inside are aliases of its node's MIDI buses.
    private func resolveMIDIInputs(_ context: Context, _ id: NodeID, _ state: State) throws(GraphError) -> [FlatMIDISource] {
        var sources: [FlatMIDISource] = []
        var seen = Set<[Int]>()
        for connection in context.graph.model.midiConnections where connection.destination == id {
            // A producer reached by several routes is heard once.
            for producer in try midiProducers(context, connection.source, connection.sourceBus, state, depth: 0)
            where seen.insert([producer.node, producer.bus, connection.destinationBus]).inserted {
                sources.append(FlatMIDISource(node: producer.node, sourceBus: producer.bus, bus: connection.destinationBus))
            }
        }
        return sources
    }

    /// The flat nodes and MIDI output buses that MIDI output `bus` of node `id` stands
    /// for: the node itself, or what reaches a subgraph's MIDI output port inside, or
    /// what reaches a subgraph node's MIDI input from outside; each once, however many
    /// routes lead to it. A bypassed subgraph passes no MIDI either way.
    private func midiProducers(_ context: Context, _ id: NodeID, _ bus: Int, _ state: State, depth: Int) throws(GraphError) -> [MIDIProducer] {
        guard depth < 64 else { throw .subgraph(node: context.name(id), reason: "MIDI crosses subgraph boundaries more than 64 times") }
        let end = MIDIEnd(context: ObjectIdentifier(context), node: id, bus: bus)
        if let known = state.midiProducers[end] { return known }
        var found: [MIDIProducer] = [], seen = Set<MIDIProducer>()
        func add(_ connections: [MIDIConnection], in context: Context) throws(GraphError) {
            for connection in connections {
                for producer in try midiProducers(context, connection.source, connection.sourceBus, state, depth: depth + 1)
                where seen.insert(producer).inserted { found.append(producer) }
            }
        }
        if let child = context.children[id] {
            if !child.isBypassed, let port = child.graph.nodes.first(where: { $0.unit.role == .midiOutputPort(bus) }) {
                try add(child.graph.model.midiConnections.filter { $0.destination == port.id }, in: child)
            }
        } else if let parent = context.parent, case .midiInputPort(let port)? = context.graph.model.nodes[id]?.unit.role {
            if !context.isBypassed {
                try add(parent.graph.model.midiConnections.filter { $0.destination == context.nodeInParent! && $0.destinationBus == port }, in: parent)
            }
        } else {
            guard let index = state.index[ObjectIdentifier(context)]?[id] else { throw .unknownNode(id) }
            found = [MIDIProducer(node: index, bus: bus)]
        }
        state.midiProducers[end] = found
        return found
    }

    private func resolveSource(_ context: Context, _ id: NodeID, _ bus: Int, from: Endpoint, _ state: State) throws(GraphError) -> FlatSource? {
        if let child = context.children[id] {
            if child.isBypassed {
                // What feeds the subgraph node passes on, its width mapped, or silence.
                guard var source = try resolveInput(context, id, 0, state) else { return nil }
                source.converts = true
                return source
            }
            guard let output = child.graph.nodes.first(where: { $0.unit.role == .graphOutput }) else { return nil }
            return try resolveInput(child, output.id, 0, state)
        }
        if let parent = context.parent, context.graph.model.nodes[id]?.unit.role == .graphInput {
            // A bypassed subgraph's input goes past it, and one output feeds one input:
            // inside, the nodes hear silence (and keep running, so bypass off resumes them).
            if context.isBypassed { return nil }
            return try resolveInput(parent, context.nodeInParent!, bus, state)
        }
        guard let index = state.index[ObjectIdentifier(context)]?[id] else { throw .unknownNode(id) }
        return FlatSource(node: index, bus: bus, converts: false, from: from)
    }

    // MARK: - Checks

    private func outputFormat(_ node: FlatNode, _ bus: Int) throws(GraphError) -> StreamFormat {
        do { return try node.unit.format(scope: .output, element: bus) } catch { throw .unit(node: node.name, error) }
    }

    private func inputFormat(_ node: FlatNode, _ bus: Int) throws(GraphError) -> StreamFormat {
        do { return try node.unit.format(scope: .input, element: bus) } catch { throw .unit(node: node.name, error) }
    }

    private func checkFormats(_ nodes: [FlatNode]) throws(GraphError) {
        for node in nodes {
            for (bus, source) in node.inputs.enumerated() {
                guard let source else { continue }
                let from = try outputFormat(nodes[source.node], source.bus)
                let to = try inputFormat(node, bus)
                let sameWidth = from.channelCount == to.channelCount
                if from.sampleRate != to.sampleRate || (!sameWidth && !source.converts) {
                    throw .formatMismatch(
                        from: Endpoint(node: nodes[source.node].name, scope: .output, bus: source.bus), from,
                        to: Endpoint(node: node.name, scope: .input, bus: bus), to)
                }
            }
        }
    }

    private func topologicalOrder(_ nodes: [FlatNode]) throws(GraphError) -> [Int] {
        var consumers = Array(repeating: [Int](), count: nodes.count)
        var waiting = Array(repeating: 0, count: nodes.count)
        for (index, node) in nodes.enumerated() {
            for source in node.inputs.compactMap({ $0 }) {
                consumers[source.node].append(index)
                waiting[index] += 1
            }
            for source in node.midiInputs {
                consumers[source.node].append(index)
                waiting[index] += 1
            }
        }
        var ready = (0..<nodes.count).filter { waiting[$0] == 0 }
        var order: [Int] = []
        var cursor = 0
        while cursor < ready.count {
            let node = ready[cursor]
            cursor += 1
            order.append(node)
            for consumer in consumers[node] {
                waiting[consumer] -= 1
                if waiting[consumer] == 0 { ready.append(consumer) }
            }
        }
        guard order.count == nodes.count else {
            throw .feedback(cycle: (0..<nodes.count).filter { waiting[$0] > 0 }.map { nodes[$0].name })
        }
        return order
    }

    // MARK: - Planning

    private func plan(_ nodes: [FlatNode], order: [Int], observed: [Int: [(bus: Int, observer: any BusObserver, watches: String)]]) throws(GraphError) -> ProgramPlan {
        var plan = ProgramPlan()
        var allocator = BufferAllocator(reuses: reusesBuffers)
        var outputBus = Array(repeating: [Int](), count: nodes.count)
        var midiOutputBuffers = Array(repeating: [Int](), count: nodes.count)
        var arrival = Array(repeating: 0, count: nodes.count)
        var silentBuses: [Int: Int] = [:]
        // Which output buses of each node something reads.
        var readBuses = Array(repeating: Set<Int>(), count: nodes.count)
        for node in nodes { for source in node.inputs.compactMap({ $0 }) { readBuses[source.node].insert(source.bus) } }

        func latency(_ node: Int) -> Int { nodes[node].role == .unit ? max(0, nodes[node].unit.latencyFrames) : 0 }
        func releaseBus(_ bus: Int) { allocator.release(plan.buses[bus].buffers) }
        func silentBus(_ channels: Int) -> Int {
            if let bus = silentBuses[channels] { return bus }
            let bus = plan.addBus(buffers: Array(repeating: ProgramPlan.silence, count: channels))
            silentBuses[channels] = bus
            return bus
        }

        for index in order {
            let node = nodes[index]
            if node.role == .unit { plan.compensatedLatencies.append((node.unit, node.name, latency(index))) }
            let sources = node.inputs
            let readyAt = sources.compactMap { $0 }.map { arrival[$0.node] + latency($0.node) }
            arrival[index] = readyAt.max() ?? 0

            var inputBuses: [Int] = []
            // What this node reads; one output feeds one input, so nothing else will.
            var consumed: [Int] = []
            for (bus, source) in sources.enumerated() {
                let channels = try inputFormat(node, bus).channelCount
                guard let source else {
                    inputBuses.append(silentBus(channels))
                    continue
                }
                var current = outputBus[source.node][source.bus]
                let sourceChannels = plan.buses[current].channelCount
                if sourceChannels != channels {
                    let converted = plan.addBus(buffers: allocator.allocate(channels))
                    plan.operations.append(.convertChannels(from: Int32(current), to: Int32(converted)))
                    releaseBus(current)  // the conversion step was its reader
                    current = converted
                }
                let lag = arrival[index] - (arrival[source.node] + latency(source.node))
                if lag > 0 {
                    let delayed = plan.addBus(buffers: allocator.allocate(channels))
                    plan.delays.append(.init(
                        frames: lag, channelCount: channels, reason: "aligns \(source.from) with the slowest input of \(node.name)",
                        key: "\(node.unit.unitID).\(bus)"))
                    plan.operations.append(.delay(line: Int32(plan.delays.count - 1), from: Int32(current), to: Int32(delayed)))
                    releaseBus(current)  // the delay step was its reader
                    current = delayed
                }
                inputBuses.append(current)
                consumed.append(current)
            }

            let midiSources = node.midiInputs.map { source in
                ProgramPlan.MIDISource(buffer: midiOutputBuffers[source.node][source.sourceBus], bus: source.bus)
            }
            switch node.role {
            case .midiInputPort(let port):
                let buffer = plan.addMIDIBuffer(named: "\(node.name) midi output 0")
                plan.operations.append(.fillMIDI(port: Int32(port), buffer: Int32(buffer)))
                midiOutputBuffers[index] = [buffer]
            case .midiOutputPort(let port):
                plan.midiSinks.append(.init(port: port, name: node.name, sources: midiSources.map(\.buffer)))
                plan.operations.append(.emitMIDI(sink: Int32(plan.midiSinks.count - 1)))
            case .output:
                plan.outputChannelCount = inputBuses.first.map { plan.buses[$0].channelCount } ?? 0
                if let bus = inputBuses.first { plan.operations.append(.emitOutput(bus: Int32(bus))) }
                outputBus[index] = Array(inputBuses.prefix(1))
                plan.latency = arrival[index]
            case .input:
                var buses: [Int] = []
                var firstChannel = 0
                for bus in 0..<node.unit.elementCount(.output) {
                    let channels = try outputFormat(node, bus).channelCount
                    let planned = plan.addBus(buffers: allocator.allocate(channels))
                    plan.operations.append(.fillInput(bus: Int32(planned), firstChannel: Int32(firstChannel)))
                    buses.append(planned)
                    firstChannel += channels
                }
                outputBus[index] = buses
                plan.inputChannelCount = firstChannel
            case .unit where Self.instances(of: node.unit) != nil:
                outputBus[index] = [plan.addBus(buffers: allocator.allocate(plan.buses[inputBuses[0]].channelCount))]
                layOutInstances(node, input: inputBuses[0], output: outputBus[index][0], in: &plan)
            case .unit:
                var outputs: [Int] = []
                for bus in 0..<node.unit.elementCount(.output) {
                    let channels = try outputFormat(node, bus).channelCount
                    outputs.append(plan.addBus(buffers: allocator.allocate(channels)))
                }
                outputBus[index] = outputs
                midiOutputBuffers[index] = (0..<node.unit.midiBusCount(.output)).map { bus in
                    plan.addMIDIBuffer(named: "\(node.name) midi output \(bus)")
                }
                plan.units.append(.init(
                    unit: node.unit, name: node.name, inputs: inputBuses, outputs: outputs,
                    midiInputs: midiSources, midiOutputs: midiOutputBuffers[index]))
                plan.operations.append(.render(unit: Int32(plan.units.count - 1)))
            }
            for entry in observed[index] ?? [] where entry.bus < outputBus[index].count {
                plan.observers.append((entry.observer, entry.watches))
                plan.operations.append(.observe(observer: Int32(plan.observers.count - 1), bus: Int32(outputBus[index][entry.bus])))
            }
            for bus in consumed { releaseBus(bus) }
            // Outputs nobody reads are free again at once.
            for (bus, busIndex) in outputBus[index].enumerated() where !readBuses[index].contains(bus) { releaseBus(busIndex) }
        }
        plan.bufferCount = allocator.count
        return plan
    }
}

/// Hands out mono buffers of the pool, reusing released ones first.
struct BufferAllocator {
    private(set) var count = 0
    private var free: [Int] = []
    let reuses: Bool

    init(reuses: Bool = true) { self.reuses = reuses }

    mutating func allocate(_ channels: Int) -> [Int] {
        (0..<channels).map { _ in
            if let buffer = free.popLast() { return buffer }
            count += 1
            return count - 1
        }
    }

    mutating func release(_ buffers: [Int]) {
        guard reuses else { return }
        for buffer in buffers where buffer != ProgramPlan.silence && !free.contains(buffer) { free.append(buffer) }
    }
}
