import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisMedia
import TrellisSession
import TrellisUnits

/// Turns a parsed pipeline into a graph: source, units in series, generic output. What
/// `trellis chain` renders and what a chain opened through the C interface processes.
public struct ChainBuilder {
    public let registry: ComponentRegistry
    public let blockSize: Int
    /// The rate asked for; nil for the source file's (48 kHz for a tone).
    public let rate: Double?

    public init(registry: ComponentRegistry, blockSize: Int, rate: Double?) {
        self.registry = registry
        self.blockSize = blockSize
        self.rate = rate
    }

    public struct Built {
        public var graph: Graph
        public var input: AudioFileReader?
        /// The MIDI file a chain plays, when its source is one.
        public var song: MIDIFilePlayer?
        /// The graph's nodes of the pipeline's units, in order.
        public var stages: [NodeID]
    }

    /// Whether a chain's source names a Standard MIDI File.
    public static func isMIDIFile(_ word: String) -> Bool {
        let name = word.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return ["mid", "midi", "smf", "kar"].contains(name[name.index(after: dot)...].lowercased())
    }

    /// The graph of `pipeline`, initialized, its transport rolling.
    public func build(_ pipeline: ChainPipeline) throws(CommandError) -> Built {
        let factory = UnitFactory(registry: registry)
        var input: AudioFileReader?
        var song: MIDIFilePlayer?
        let channels: Int
        let rate: Double
        let source: any AudioUnit
        if pipeline.source.word == "tone" {
            var description = try pipeline.source.description(unit: "tone")
            description.channels = description.channels ?? 2
            channels = description.channels!
            rate = self.rate ?? 48_000
            source = try pipeline.source.make(description, with: factory)
        } else if pipeline.source.word == "jack" {
            throw CommandError("chain: live chains with jack need the JACK head node, which this build does not have yet")
        } else if Self.isMIDIFile(pipeline.source.word) {
            let player = MIDIFilePlayer()
            do { try player.load(path: pipeline.source.word) } catch { throw CommandError("chain: \(error)", kind: .file) }
            song = player
            channels = 2
            rate = self.rate ?? 48_000
            source = player
        } else {
            do { input = try AudioFileReader(path: pipeline.source.word) } catch { throw CommandError("chain: \(error)", kind: .file) }
            channels = input!.info.channelCount
            rate = self.rate ?? input!.info.sampleRate
            source = GraphInput(channelCount: channels)
        }
        let name = pipeline.source.word == "tone" ? "tone" : song != nil ? "song" : "input"
        let (graph, stages) = try assemble(pipeline, source: source, named: name, channels: channels, rate: rate, factory: factory)
        return Built(graph: graph, input: input, song: song, stages: stages)
    }

    /// The graph of `units` fed by the graph's input, `channels` wide, at `rate`: what the
    /// C interface processes buffers with.
    public func build(units: [ChainPipeline.Stage], channels: Int, rate: Double) throws(CommandError) -> Built {
        let pipeline = ChainPipeline(source: ChainPipeline.Stage(word: "input", settings: [], position: 0), units: units,
                                     sink: ChainPipeline.Stage(word: "output", settings: [], position: units.count + 1))
        let (graph, stages) = try assemble(
            pipeline, source: GraphInput(channelCount: channels), named: "input", channels: channels, rate: rate,
            factory: UnitFactory(registry: registry), unfedInstruments: true)
        return Built(graph: graph, input: nil, song: nil, stages: stages)
    }

    /// `unfedInstruments`: a unit that takes MIDI and no audio after a stage that sends no
    /// MIDI is left unconnected (an instrument opened to read its parameters, or played
    /// silent), not refused.
    private func assemble(
        _ pipeline: ChainPipeline, source: any AudioUnit, named name: String, channels: Int, rate: Double, factory: UnitFactory,
        unfedInstruments: Bool = false
    ) throws(CommandError) -> (Graph, [NodeID]) {
        let graph = Graph(registry: registry, sampleRate: rate, maximumFrames: blockSize)
        var stages: [NodeID] = []
        do {
            var previous = try graph.addNode(source, name: name)
            for stage in pipeline.units {
                let description = try stage.description(unit: stage.word)
                // A mono plugin in a wider chain runs once per channel.
                let unit = try stage.make(description, with: factory, fedWidth: channels)
                if description.channels == nil, description.inputChannels == nil, description.outputChannels == nil, !(unit is MultiMonoUnit) {
                    Self.fit(unit, channels: channels, outputs: description.channelMap?.count)
                }
                let node = try graph.addNode(unit)
                // The one rule sessions and ctl use: MIDI where only MIDI flows.
                if graph.impliesMIDI(from: previous, to: node) {
                    if try !(unfedInstruments && graph.unit(previous).midiBusCount(.output) == 0) {
                        try graph.connectMIDI(previous, to: node)
                    }
                } else {
                    try graph.connect(previous, to: node, converting: true)
                }
                stages.append(node)
                previous = node
            }
            if let last = pipeline.units.last, let unit = try? graph.unit(previous), unit.elementCount(.output) == 0, unit.midiBusCount(.output) > 0 {
                throw CommandError("chain: \(last.word) sends MIDI and no audio, so nothing reaches \(pipeline.sink.word); "
                    + "end the chain with an instrument (! lv2:URI-of-a-synth ! \(pipeline.sink.word)) or with `midi` to send it to a JACK MIDI port",
                    kind: .unit)
            }
            // The chain's width, unless its last stage asks for its own.
            var width = channels
            if let last = pipeline.units.last, let description = try? last.description(unit: last.word),
               description.outputChannels != nil || description.channelMap != nil,
               let asked = try? graph.unit(previous).format(scope: .output, element: 0).channelCount {
                width = asked
            }
            let output = try graph.addNode(GenericOutput(channelCount: width), name: "output")
            try graph.connect(previous, to: output, converting: true)
            try graph.initialize()
            // A render plays: the transport rolls from its first frame.
            graph.engine.changeTransport(.play)
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("chain: \(error)", kind: .unit)
        }
        return (graph, stages)
    }

    /// Gives a unit's first buses the chain's width where the unit allows it; where it
    /// does not (a mono plugin), the connections convert.
    public static func fit(_ unit: any AudioUnit, channels: Int, outputs: Int? = nil) {
        for scope in [Scope.input, .output] where unit.elementCount(scope) > 0 {
            guard var format = try? unit.format(scope: scope, element: 0) else { continue }
            format.channelCount = scope == .output ? outputs ?? channels : channels
            try? unit.setFormat(format, scope: scope, element: 0)
        }
    }
}

extension ChainPipeline.Stage {
    /// The stage's settings as a node description of `unit`: the form `ctl add` takes.
    public func description(unit: String) throws(CommandError) -> NodeDescription {
        do { return try NodeDescription(unit: unit, settings: settings).anchoringFiles(in: ".") } catch { throw failure(error) }
    }

    /// The unit the stage describes, made by the factory sessions and `ctl add` use.
    public func make(_ description: NodeDescription, with factory: UnitFactory, fedWidth: Int? = nil) throws(CommandError) -> any AudioUnit {
        do { return try factory.make(description, fedWidth: fedWidth) } catch { throw failure(error) }
    }

    /// `chain: "WORD" (argument N): MESSAGE`.
    public func failure(_ error: UnitFactoryError) -> CommandError {
        let kind: CommandError.Kind
        switch error {
        case .unknownUnit, .unitNotCreated: kind = .unit
        case .file, .unreadablePreset: kind = .file
        default: kind = .parameter
        }
        return CommandError("chain: \"\(word)\" (argument \(position)): \(error)", kind: kind)
    }
}
