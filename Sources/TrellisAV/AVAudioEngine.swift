import TrellisChain
import TrellisCore
import TrellisGraph
import TrellisUnits

/// A graph of nodes and the machinery that renders it, as AVFAudio's `AVAudioEngine`:
/// nodes are attached, connected bus to bus, and rendered by a backend (this part of
/// TrellisAV: manual rendering, offline). Underneath is one Trellis `Graph`; an edit
/// while rendering is one of its transactions.
///
/// Thread: one control thread at a time; `renderOffline` on that thread too.
open class AVAudioEngine: @unchecked Sendable {
    let graph: Graph
    public private(set) var attachedNodes: Set<AVAudioNode> = []
    private var nodesByID: [NodeID: AVAudioNode] = [:]
    /// What the graph is rendered to.
    public let outputNode: AVAudioOutputNode
    private var madeMixer: AVAudioMixerNode?
    private var madeInput: AVAudioInputNode?
    /// Connections the graph refused, reported by the next `prepare`, `start` or
    /// `enableManualRenderingMode` (AVFAudio's `connect` cannot throw either).
    private var refused: [String] = []
    var manual: ManualRendering?
    private var live: LiveRendering?
    /// True inside an edit, so the edits it makes run in it.
    private var editing = false
    /// The splitters under fanned-out connections, by the bus they fan out.
    var fanOuts: [FanOut: NodeID] = [:]

    public init() {
        graph = Graph(registry: (try? Units.shared()) ?? BuiltInUnits.registry(), sampleRate: 48_000, maximumFrames: 4_096)
        outputNode = AVAudioOutputNode(channels: 2)
        attach(outputNode)
    }

    deinit {
        live?.stop()
        manual?.stop()
        graph.uninitialize()
    }

    /// The mixer every engine has, made and connected to `outputNode` when first asked for.
    public var mainMixerNode: AVAudioMixerNode {
        if let madeMixer { return madeMixer }
        let mixer = AVAudioMixerNode()
        madeMixer = mixer
        attach(mixer)
        connect(mixer, to: outputNode, format: nil)
        return mixer
    }

    var hasInputNode: Bool { madeInput != nil }

    /// The JACK server's rate and period while running live.
    var liveSettings: BackendSettings? { live?.settings }

    /// The engine's input, made when first asked for.
    public var inputNode: AVAudioInputNode {
        if let madeInput { return madeInput }
        let input = AVAudioInputNode(channels: 2)
        madeInput = input
        attach(input)
        return input
    }

    // MARK: - Nodes

    /// Adds `node` to the engine. A node belongs to one engine at a time.
    public func attach(_ node: AVAudioNode) {
        guard node.engine == nil else { return }
        edit { attachUnit(of: node) }
    }

    private func attachUnit(of node: AVAudioNode) {
        do {
            let id = try graph.addNode(node.unit)
            node.nodeID = id
            node.engine = self
            nodesByID[id] = node
            attachedNodes.insert(node)
            installTaps(of: node)
            if let instrument = node as? AVAudioUnitMIDIInstrument {
                instrument.sourceID = try graph.addNode(instrument.source)
                try graph.connectMIDI(instrument.sourceID!, to: id)
            }
        } catch {
            refuse("attach \(node.unit.name): \(error)")
        }
    }

    /// Removes `node` and every connection to and from it.
    public func detach(_ node: AVAudioNode) {
        guard node.engine === self, let id = node.nodeID else { return }
        edit { detachUnit(of: node, id: id) }
    }

    private func detachUnit(of node: AVAudioNode, id: NodeID) {
        for bus in Array(node.taps.keys) { node.removeTap(onBus: bus) }
        if let instrument = node as? AVAudioUnitMIDIInstrument, let source = instrument.sourceID {
            try? graph.removeNode(source)
            instrument.sourceID = nil
        }
        for fanOut in fanOuts.keys where fanOut.node == id { removeFanOut(of: id, bus: fanOut.bus) }
        try? graph.removeNode(id)
        nodesByID[id] = nil
        attachedNodes.remove(node)
        node.nodeID = nil
        node.engine = nil
    }

    /// Runs an edit of the graph: while live, under the lock the driver's upkeep thread
    /// takes, so it never compiles a graph half edited. Edits inside it join it.
    func edit<T>(_ body: () -> T) -> T {
        guard let live, !editing else { return body() }
        editing = true
        defer { editing = false }
        return live.withGraph(body)
    }

    // MARK: - Connections

    /// Connects `node1`'s bus 0 to `node2`'s bus 0, or to a mixer's next free input.
    /// `format` nil takes `node1`'s output format.
    public func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {
        let bus = (node2 as? any MixingNode)?.nextAvailableInputBus ?? 0
        connect(node1, to: node2, fromBus: 0, toBus: bus, format: format)
    }

    /// Connects one output bus to one input bus, replacing what either end was
    /// connected to. The channel counts of both ends follow `format` (or `node1`'s
    /// output); where rates differ a converter is put between them.
    public func connect(_ node1: AVAudioNode, to node2: AVAudioNode, fromBus bus1: AVAudioNodeBus, toBus bus2: AVAudioNodeBus, format: AVAudioFormat?) {
        edit { connectBuses(node1, to: node2, fromBus: bus1, toBus: bus2, format: format) }
    }

    private func connectBuses(_ node1: AVAudioNode, to node2: AVAudioNode, fromBus bus1: AVAudioNodeBus, toBus bus2: AVAudioNodeBus, format: AVAudioFormat?) {
        attach(node1)
        attach(node2)
        guard let from = node1.nodeID, let to = node2.nodeID else { return }
        do {
            try (node2 as? any MixingNode)?.ensureInput(bus2)
            if let existing = graph.connections.first(where: { $0.destination == to && $0.destinationBus == bus2 }) {
                try graph.disconnect(existing.destination, existing.destinationBus)
            }
            removeFanOut(of: from, bus: bus1)
            if let existing = graph.connections.first(where: { $0.source == from && $0.sourceBus == bus1 }) {
                try graph.disconnect(existing.destination, existing.destinationBus)
            }
            let channels = Int(format?.channelCount ?? node1.outputFormat(forBus: bus1).channelCount)
            if !graph.isInitialized {
                try setChannels(channels, of: node1.unit, .output, bus1)
                try setChannels(channels, of: node2.unit, .input, bus2)
            }
            try graph.connect(from, bus1, to: to, bus2, converting: true)
            carryMixing(of: node1, to: node2, bus: bus2)
        } catch {
            refuse("connect \(node1.unit.name) bus \(bus1) to \(node2.unit.name) bus \(bus2): \(error)")
        }
    }

    public func disconnectNodeInput(_ node: AVAudioNode, bus: AVAudioNodeBus) {
        guard let id = node.nodeID else { return }
        edit { _ = try? graph.disconnect(id, bus) }
    }

    public func disconnectNodeInput(_ node: AVAudioNode) {
        for bus in inputConnections(of: node).keys { disconnectNodeInput(node, bus: bus) }
    }

    public func disconnectNodeOutput(_ node: AVAudioNode, bus: AVAudioNodeBus) {
        guard let id = node.nodeID else { return }
        edit {
            removeFanOut(of: id, bus: bus)
            guard let connection = graph.connections.first(where: { $0.source == id && $0.sourceBus == bus }) else { return }
            _ = try? graph.disconnect(connection.destination, connection.destinationBus)
        }
    }

    public func disconnectNodeOutput(_ node: AVAudioNode) {
        for bus in 0..<node.numberOfOutputs { disconnectNodeOutput(node, bus: bus) }
    }

    /// Where `node`'s output `bus` goes.
    public func outputConnectionPoints(for node: AVAudioNode, outputBus bus: AVAudioNodeBus) -> [AVAudioConnectionPoint] {
        if let id = node.nodeID, let splitter = fanOuts[FanOut(node: id, bus: bus)] {
            return graph.connections.filter { $0.source == splitter }.sorted { $0.sourceBus < $1.sourceBus }.compactMap { connection in
                nodesByID[connection.destination].map { AVAudioConnectionPoint(node: $0, bus: connection.destinationBus) }
            }
        }
        return graph.connections.filter { $0.source == node.nodeID && $0.sourceBus == bus }.compactMap { connection in
            nodesByID[connection.destination].map { AVAudioConnectionPoint(node: $0, bus: connection.destinationBus) }
        }
    }

    /// Where `node`'s input `bus` comes from, if anything feeds it.
    public func inputConnectionPoint(for node: AVAudioNode, inputBus bus: AVAudioNodeBus) -> AVAudioConnectionPoint? {
        inputConnections(of: node)[bus]
    }

    func outputConnectionPoints(for node: AVAudioNode) -> [AVAudioConnectionPoint] {
        (0..<node.numberOfOutputs).flatMap { outputConnectionPoints(for: node, outputBus: $0) }
    }

    func inputConnections(of node: AVAudioNode) -> [AVAudioNodeBus: AVAudioConnectionPoint] {
        var points: [AVAudioNodeBus: AVAudioConnectionPoint] = [:]
        for connection in graph.connections where connection.destination == node.nodeID {
            if let source = nodesByID[connection.source] {
                points[connection.destinationBus] = AVAudioConnectionPoint(node: source, bus: connection.sourceBus)
            } else if let fanOut = fanOut(servedBy: connection.source), let source = nodesByID[fanOut.node] {
                points[connection.destinationBus] = AVAudioConnectionPoint(node: source, bus: fanOut.bus)
            }
        }
        return points
    }

    /// A source's mixing settings go to the mixer or environment input it now feeds.
    func carryMixing(of source: AVAudioNode, to node: AVAudioNode, bus: AVAudioNodeBus) {
        (node as? any MixingNode)?.setMixing(source.mixing, ofInput: bus)
    }

    func setChannels(_ channels: Int, of unit: any AudioUnit, _ scope: Scope, _ bus: Int) throws(AudioUnitError) {
        guard var format = try? unit.format(scope: scope, element: bus), format.channelCount != channels else { return }
        format.channelCount = channels
        try unit.setFormat(format, scope: scope, element: bus)
    }

    // MARK: - Running

    /// Initializes every node and compiles the graph, so the first render has nothing to wait for.
    public func prepare() {
        try? initialize()
    }

    /// Keeps what the graph refused for the next `prepare`, `start` or manual rendering to throw.
    func refuse(_ message: String) { refused.append(message) }

    /// Throws what the graph refused since the last check, then initializes it.
    func initialize() throws(AVAudioError) {
        if !refused.isEmpty {
            let message = refused.joined(separator: "; ")
            refused = []
            throw AVAudioError(.graph, message)
        }
        let failure: String? = edit {
            do { try graph.initialize() } catch { return "\(error)" }
            return nil
        }
        if let failure { throw AVAudioError(.graph, failure) }
        // Files scheduled before the engine was set up are read now, at its rate, so the
        // first cycle has them.
        for case let player as AVAudioPlayerNode in attachedNodes { player.waitForStreaming(frameCount: 0) }
    }

    /// Not in AVFAudio: the JACK server a live engine joins; nil is the one
    /// `JACK_DEFAULT_SERVER` names, or the default server.
    public var jackServerName: String?

    /// Whether the engine renders: in manual rendering, from `start` to `stop` or `pause`.
    public private(set) var isRunning = false

    /// Starts rendering: in manual rendering mode, for `renderOffline`; else live, as a
    /// JACK client of the server `JACK_DEFAULT_SERVER` names (or the default one), its
    /// output ports (and its input ports, once `inputNode` was asked for) connected to
    /// the server's physical ports, at the server's rate and period.
    public func start() throws {
        guard !isRunning else { return }
        try initialize()
        if let manual {
            try manual.start(input: madeInput?.manualInput)
        } else {
            let live = try LiveRendering(graph: graph, serverName: jackServerName, inputChannels: madeInput.map { Int($0.outputFormat(forBus: 0).channelCount) } ?? 0,
                                     outputChannels: Int(outputNode.inputFormat(forBus: 0).channelCount))
            try live.start(for: self)
            self.live = live
        }
        isRunning = true
    }

    /// Stops rendering; resources stay, so `start` resumes at once. Live, the JACK client
    /// closes (as Apple's engine lets the device go).
    public func pause() { stop() }

    /// Stops rendering. In manual rendering mode the sample time starts again from 0.
    public func stop() {
        isRunning = false
        manual?.stop()
        live?.stop()
        live = nil
    }

    /// Clears every node's state.
    public func reset() {
        for node in attachedNodes { node.reset() }
    }

    /// The time of the slice rendered last (live: of the next cycle).
    var lastRenderTime: AVAudioTime? {
        if let live { return AVAudioTime(hostTime: AVAudioTime.now, sampleTime: live.sampleTime, atRate: graph.sampleRate) }
        return manual.map { AVAudioTime(sampleTime: $0.sampleTime, atRate: graph.sampleRate) }
    }
}
