import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisMedia
import TrellisUnits

/// A recorder resolved against the graph: which bus of which node, into which file.
public struct RecorderTarget: @unchecked Sendable {
    public var name: String
    public var node: NodeID
    public var unit: any AudioUnit
    public var bus: Int
    /// Resolved against the session file's folder.
    public var path: String
    /// wav, aiff, caf, flac or ogg.
    public var format: String
    /// The sample type asked for; nil for the container's own.
    public var sampleType: SampleType?
    public var dither: Bool
    public var quality: Double?
    /// The file's rate and width; nil for the bus's.
    public var sampleRate: Double?
    public var channels: Int?
    public var location: SourceLocation

    /// What the recorder writes: the format's container, the sample type asked for (or
    /// the container's own), dithered unless the session says not, at the rate and width
    /// asked for.
    public var settings: RecordingSettings {
        var settings = RecordingSettings.session(AudioFileContainer(pathExtension: format), sampleType: sampleType, dither: dither, quality: quality)
        settings.sampleRate = sampleRate
        settings.channelCount = channels
        return settings
    }
}

/// Checks of the parts the graph does not hold: recorders and JACK ports.
struct SessionChecks {
    let document: SessionDocument
    let built: GraphBuilder.Built
    let directory: String
    let checkFiles: Bool

    func recorders() throws(SessionError) -> [RecorderTarget] {
        var result: [RecorderTarget] = []
        for spec in document.recorders {
            let sourceAt = spec.positions["source"] ?? spec.location
            guard let id = built.ids[spec.source.node], let unit = try? built.graph.unit(id) else {
                let hint = Suggestions.didYouMean(Suggestions.closest(to: spec.source.node, among: Array(built.ids.keys)))
                throw SessionError("recorder \(quoted(spec.name)): no node named \(quoted(spec.source.node))\(hint)", at: sourceAt)
            }
            let buses = unit.elementCount(.output)
            guard spec.source.busIndex < buses else {
                throw SessionError("recorder \(quoted(spec.name)): \(spec.source.node) has \(buses) output bus\(buses == 1 ? "" : "es"), no bus \(spec.source.busIndex)", at: sourceAt)
            }
            let fileAt = spec.positions["file"] ?? spec.location
            let path = SessionLoader.resolve(spec.file, in: directory)
            let folder = SessionLoader.directoryOf(path)
            if checkFiles, !FileChecks.isDirectory(folder) {
                throw SessionError("recorder \(quoted(spec.name)): the folder \(folder) does not exist", at: fileAt)
            }
            let fileExtension = path.split(separator: "/").last.flatMap { $0.contains(".") ? $0.split(separator: ".").last : nil }.map { $0.lowercased() }
            let byExtension = fileExtension.flatMap { ["wav": "wav", "wave": "wav", "aif": "aiff", "aiff": "aiff", "caf": "caf", "flac": "flac", "ogg": "ogg", "oga": "ogg"][$0] }
            guard let format = spec.format ?? byExtension else {
                throw SessionError("recorder \(quoted(spec.name)): cannot tell the format of \(spec.file) from its name; add format: (\(RecorderSpec.formats.joined(separator: ", ")))", at: fileAt)
            }
            let sampleType = spec.sampleType.flatMap { SampleType(rawValue: $0) }
            if let sampleType, let container = AudioFileContainer(pathExtension: format), !container.canHold(sampleType) {
                let held = container.supportedSampleTypes.map(\.rawValue).joined(separator: ", ")
                throw SessionError("recorder \(quoted(spec.name)): \(container) cannot hold \(sampleType) samples; it holds \(held)", at: spec.positions["sample-type"] ?? spec.location)
            }
            if spec.quality != nil, format != "ogg" {
                throw SessionError("recorder \(quoted(spec.name)): quality applies to Ogg Vorbis, not \(format)", at: spec.positions["quality"] ?? spec.location)
            }
            result.append(RecorderTarget(name: spec.name, node: id, unit: unit, bus: spec.source.busIndex, path: path, format: format,
                                         sampleType: sampleType, dither: spec.dither ?? true, quality: spec.quality,
                                         sampleRate: spec.sampleRate, channels: spec.channels, location: spec.location))
        }
        return result
    }

    /// A recorder writing over a file the session plays, or over another recorder's,
    /// would destroy a take or an input the moment it starts.
    func recordersSpare(_ players: [FilePlayerSpec], _ recorders: [RecorderTarget]) throws(SessionError) {
        for (index, recorder) in recorders.enumerated() {
            let at = document.recorders.first { $0.name == recorder.name }.map { $0.positions["file"] ?? $0.location } ?? recorder.location
            if let player = players.first(where: { FileChecks.sameFile($0.path, recorder.path) }) {
                throw SessionError("recorder \(quoted(recorder.name)): \(recorder.path) is the file node \(quoted(player.node)) plays; recording would destroy it, so record to another file", at: at)
            }
            if let other = recorders[..<index].first(where: { FileChecks.sameFile($0.path, recorder.path) }) {
                throw SessionError("recorder \(quoted(recorder.name)): \(recorder.path) is also recorder \(quoted(other.name))'s file; give each its own", at: at)
            }
        }
    }

    func jack() throws(SessionError) {
        guard let jack = document.jack else { return }
        let nodes = built.graph.nodes
        let inputNode = nodes.first { $0.unit.role == .graphInput }
        let outputNode = nodes.first { $0.unit.role == .graphOutput }
        if !jack.inputs.isEmpty {
            let at = jack.positions["inputs"] ?? jack.location
            guard let inputNode else {
                throw SessionError("jack: \(jack.inputs.count) input ports but no input node to receive them; add one (e.g. `in: { unit: input, channels: \(jack.inputs.count) }`)", at: at)
            }
            let channels = channelCount(inputNode.unit, .output)
            guard channels == jack.inputs.count else {
                throw SessionError("jack: \(jack.inputs.count) input ports, but input node \(quoted(inputNode.name)) has \(channels) channels; they must match", at: at)
            }
        }
        if !jack.outputs.isEmpty, let outputNode {
            let channels = channelCount(outputNode.unit, .input)
            guard channels == jack.outputs.count else {
                throw SessionError("jack: \(jack.outputs.count) output ports, but output node \(quoted(outputNode.name)) has \(channels) channels; they must match", at: jack.positions["outputs"] ?? jack.location)
            }
        }
        let ours = jack.inputs + jack.outputs + jack.midiInputs + jack.midiOutputs
        for connection in jack.connect {
            let fromOurs = !connection.from.contains(":"), toOurs = !connection.to.contains(":")
            func unknown(_ name: String) -> SessionError {
                let hint = Suggestions.didYouMean(Suggestions.closest(to: name, among: ours))
                return SessionError("jack: \(quoted(name)) is not a port of this client (other clients' ports are written client:port)\(hint)", at: connection.location)
            }
            guard fromOurs || toOurs else {
                throw SessionError("jack: \(quoted(connection.from + " -> " + connection.to)) names no port of this client; one side must be one of \(ours.joined(separator: ", "))", at: connection.location)
            }
            if fromOurs {
                let matched = try matching(connection.from, among: ours, at: connection.location)
                guard !matched.isEmpty else { throw unknown(connection.from) }
                guard matched.allSatisfy({ jack.outputs.contains($0) || jack.midiOutputs.contains($0) }) else {
                    throw SessionError("jack: \(quoted(connection.from)) names an input port of this client; it receives and cannot be a source", at: connection.location)
                }
            }
            if toOurs {
                let matched = try matching(connection.to, among: ours, at: connection.location)
                guard !matched.isEmpty else { throw unknown(connection.to) }
                guard matched.allSatisfy({ jack.inputs.contains($0) || jack.midiInputs.contains($0) }) else {
                    throw SessionError("jack: \(quoted(connection.to)) names an output port of this client; it sends and cannot be a destination", at: connection.location)
                }
            }
        }
    }

    private func matching(_ pattern: String, among names: [String], at location: SourceLocation) throws(SessionError) -> [String] {
        var matched: [String] = []
        for name in names where try PortNamePattern.matches(pattern, name, at: location) { matched.append(name) }
        return matched
    }

    private func channelCount(_ unit: any AudioUnit, _ scope: Scope) -> Int {
        (0..<unit.elementCount(scope)).reduce(0) { $0 + ((try? unit.format(scope: scope, element: $1).channelCount) ?? 0) }
    }
}
