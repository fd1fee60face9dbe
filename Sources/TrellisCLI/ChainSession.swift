import Foundation
import TrellisChain
import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisSession

/// A pipeline written out as a session: a file source becomes a player, a file sink a
/// recorder on the last stage, `jack` ends become the session's JACK ports (settings:
/// `channels=N`, `connect=PATTERN` naming the other clients' ports), `midi` ends its
/// JACK MIDI ports `midi_in` and `midi_out` (`connect=PATTERN`), units keep their
/// settings as written: node keys (`channels=`, `bypass=`...) as the node's, the rest
/// as parameters. Neighbouring stages connect by the graph's one rule: MIDI where one
/// side has MIDI and no audio (`midi ! lv2:…fifths ! lv2:…EPiano ! jack`), else audio.
/// This is what `--save` writes and what a live chain runs.
enum ChainSession {
    static func document(_ pipeline: ChainPipeline, file: String, sampleRate: Double, blockSize: Int) throws(CLIError) -> SessionDocument {
        var document = SessionDocument(file: file)
        document.defaults = SessionDefaults(sampleRate: sampleRate, blockSize: blockSize)
        let here = SourceLocation(file: file, line: 1, column: 1)
        var nodes: [NodeSpec] = []
        var jack = JackSpec(location: here)
        var usesJACK = false

        func channels(_ stage: ChainPipeline.Stage, default fallback: Int) throws(CLIError) -> Int {
            guard let text = stage.settings.first(where: { $0.name == "channels" })?.value else { return fallback }
            guard let count = Int(text), (1...64).contains(count) else {
                throw CLIError("chain: \"\(stage.word)\" (argument \(stage.position)): channels=\(text) must be a whole number from 1 to 64")
            }
            return count
        }
        func connects(_ stage: ChainPipeline.Stage) -> [String] {
            stage.settings.filter { $0.name == "connect" }.map(\.value)
        }

        // The source.
        let source = pipeline.source
        var width = 2
        switch source.word {
        case "tone":
            var description = try source.description(unit: "tone")
            description.channels = description.channels ?? 2
            width = description.channels!
            nodes.append(NodeSpec(name: "tone", describing: description, location: here))
        case "jack":
            usesJACK = true
            width = try channels(source, default: 2)
            var node = NodeSpec(name: "in", source: .unit("input"), location: here)
            node.channels = width
            nodes.append(node)
            jack.inputs = (1...width).map { "in_\($0)" }
            for pattern in connects(source) { jack.connect.append(JackConnectionSpec(from: pattern, to: "in_[0-9]+", location: here)) }
        case "midi":
            usesJACK = true
            jack.midiInputs = ["midi_in"]
            for pattern in connects(source) { jack.connect.append(JackConnectionSpec(from: pattern, to: "midi_in", location: here)) }
        case let word where ["mid", "midi", "smf", "kar"].contains((word as NSString).pathExtension.lowercased()):
            // A Standard MIDI File: its song, into the stages as MIDI, from transport zero.
            var node = NodeSpec(name: "song", source: .unit("midi-player"), location: here)
            node.file = absolute(word)
            nodes.append(node)
        default:
            var node = NodeSpec(name: "source", source: .unit("player"), location: here)
            node.file = absolute(source.word)
            if let reader = try? AudioFileReader(path: source.word) { width = reader.info.channelCount }
            nodes.append(node)
        }

        // The units, in series.
        for (index, stage) in pipeline.units.enumerated() {
            nodes.append(NodeSpec(name: "stage\(index + 1)", describing: try stage.description(unit: stage.word), location: here))
        }

        // The sink.
        let sink = pipeline.sink
        var output = NodeSpec(name: "out", source: .unit("output"), location: here)
        if sink.word == "jack" {
            usesJACK = true
            width = try channels(sink, default: width)
            jack.outputs = (1...width).map { "out_\($0)" }
            for pattern in connects(sink) { jack.connect.append(JackConnectionSpec(from: "out_[0-9]+", to: pattern, location: here)) }
        }
        if sink.word == "midi" {
            usesJACK = true
            jack.midiOutputs = ["midi_out"]
            for pattern in connects(sink) { jack.connect.append(JackConnectionSpec(from: "midi_out", to: pattern, location: here)) }
        } else {
            output.channels = width
            nodes.append(output)
        }
        // MIDI port nodes come from `jack:`; they join the series at the ends.
        let series = (source.word == "midi" ? ["midi_in"] : []) + nodes.map(\.name) + (sink.word == "midi" ? ["midi_out"] : [])
        var connections: [ConnectionSpec] = []
        for (from, to) in zip(series.dropLast(), series.dropFirst()) {
            connections.append(ConnectionSpec(from: BusReference(node: from), to: BusReference(node: to), convert: true, location: here))
        }
        if sink.word != "jack" && sink.word != "midi" {
            guard nodes.count >= 2 else { throw CLIError("chain: a file sink records audio, and \(source.word) ! \(sink.word) has no stage that makes any") }
            let last = nodes[nodes.count - 2].name
            document.recorders = [RecorderSpec(name: "sink", source: BusReference(node: last, bus: 0), file: absolute(sink.word), location: here)]
        }
        document.graph = GraphBody(nodes: nodes, connections: connections)
        if usesJACK {
            jack.client = "trellis-chain"
            document.jack = jack
        }
        return document
    }

    /// The document as a person would write it: `convert` dropped from the connections
    /// the graph reads as MIDI (the chain asks every neighbouring pair to convert; MIDI
    /// has no channels), and plugins named by URI (`lv2: URI`), which never changes,
    /// rather than by the short name the command line used.
    static func forSaving(_ document: SessionDocument, registry: ComponentRegistry) throws(CLIError) -> SessionDocument {
        let graph: Graph
        do {
            graph = try SessionLoader.load(
                document: document, directory: FileManager.default.currentDirectoryPath, registry: registry,
                options: .init(initialize: false, checkFiles: false)).graph
        } catch { throw CLIError("chain: \(error)") }
        let names = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.id, $0.name) })
        let midi = Set(graph.midiConnections.map { "\(names[$0.source] ?? "") \(names[$0.destination] ?? "")" })
        var document = document
        for index in document.graph.connections.indices {
            let connection = document.graph.connections[index]
            if midi.contains("\(connection.from.node) \(connection.to.node)") {
                document.graph.connections[index] = ConnectionSpec(from: connection.from, to: connection.to, location: connection.location)
            }
        }
        for index in document.graph.nodes.indices {
            guard case .unit(let key) = document.graph.nodes[index].source,
                  let uri = (try? registry.component(named: key))?.uri else { continue }
            document.graph.nodes[index].source = .lv2(uri)
        }
        return document
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
