import Foundation
import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
@testable import TrellisSession
import TrellisMedia
import TrellisUnits

/// The repository's Sessions/ folder.
let sessionsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Sessions").path

/// Every session file under Sessions/, sorted.
func exampleFiles() -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: sessionsFolder)
    var files: [String] = []
    while let item = enumerator?.nextObject() as? String {
        if item.hasSuffix(".yaml") { files.append(sessionsFolder + "/" + item) }
    }
    return files.sorted()
}

/// A fresh folder under the system's temporary folder.
func temporaryFolder() throws -> String {
    let path = NSTemporaryDirectory() + "trellis-session-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Built-in units plus the test's own toggle unit.
func testRegistry() -> ComponentRegistry {
    let registry = BuiltInUnits.registry()
    try! MediaUnits.register(into: registry)
    try! registry.register(Component(description: Switch.componentDescription, shortName: "switch", displayName: "Test Switch") { Switch() })
    return registry
}

/// Loads session text from a file in a fresh folder, named `name`.
@discardableResult
func load(_ text: String, name: String = "test.yaml", in folder: String? = nil, options: SessionLoadOptions = .init()) throws -> LoadedSession {
    let folder = try folder ?? temporaryFolder()
    let path = folder + "/" + name
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    return try SessionLoader.load(path: path, registry: testRegistry(), options: options)
}

/// The error loading `text` gives, or nil when it loads.
func loadError(_ text: String, name: String = "test.yaml", in folder: String? = nil) throws -> SessionError? {
    do {
        try load(text, name: name, in: folder)
        return nil
    } catch let error as SessionError {
        return error
    }
}

/// A unit with one on/off parameter and a pass-through, for `on`/`off` decoding.
final class Switch: AudioUnitBase, @unchecked Sendable {
    static let componentDescription = ComponentDescription(type: ComponentType.effect, subtype: "swch", manufacturer: "test")
    private var storage: KernelStorage<PassThrough>?

    init() {
        super.init(description: Self.componentDescription, shortName: "switch", inputs: [2], outputs: [2])
        declareParameter(ParameterInfo(
            address: ParameterAddress(0), identifier: "enabled", name: "Enabled", unit: .boolean,
            range: 0...1, defaultValue: 0, flags: [.readable, .writable, .toggled]))
    }

    override func allocateRenderResources() throws(AudioUnitError) {
        storage = KernelStorage(PassThrough(), render: { PassThrough.renderInSegments($0, $1) }, reset: { PassThrough.reset($0) })
    }

    override func deallocateRenderResources() { storage = nil }

    override var renderKernel: RenderKernel? { storage?.kernel }

    struct PassThrough: UnitKernel {
        mutating func process(_ context: RenderContext) -> RenderStatus {
            context.outputs[0].copy(from: context.inputs[0], frameCount: context.frameCount)
            return .ok
        }
    }
}

/// What a graph is, for comparing two loads: every node (inside subgraphs too) with
/// its unit, parameter values and state, and every connection by names.
struct GraphSnapshot: Equatable, CustomStringConvertible {
    var nodes: [String] = []
    var connections: [String] = []

    init(_ graph: Graph, prefix: String = "") {
        let names = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.id, $0.name) })
        for node in graph.nodes {
            let path = prefix + node.name
            if let subgraph = node.unit as? Subgraph {
                let inner = GraphSnapshot(subgraph.graph, prefix: path + "/")
                nodes.append(path + " subgraph")
                nodes += inner.nodes
                connections += inner.connections
                continue
            }
            var line = "\(path) \(node.unit.componentDescription)"
            if let placeholder = node.unit as? PlaceholderUnit {
                line += " placeholder \(placeholder.spec.unitText) \(placeholder.spec.parameters.map { "\($0.name)=\($0.value)" }) \(placeholder.spec.preset ?? "") \(placeholder.spec.state ?? "")"
            }
            for info in node.unit.parameters where info.isWritable {
                line += " \(info.identifier)=\((try? node.unit.parameterValue(info.address)) ?? .nan)"
            }
            if case .bool(let bypassed)? = try? node.unit.property(.bypassEffect, scope: .global, element: 0) { line += " bypass=\(bypassed)" }
            if let stateful = node.unit as? any StatefulUnit { line += " state=\((try? stateful.stateText()) ?? "?")" }
            nodes.append(line)
        }
        for connection in graph.connections {
            connections.append("\(prefix)\(names[connection.source]!).\(connection.sourceBus) -> \(prefix)\(names[connection.destination]!).\(connection.destinationBus)\(connection.converts ? " convert" : "")")
        }
    }

    var description: String { (nodes + connections).joined(separator: "\n") }
}

/// Pulls a graph's engine for `frames` frames and returns each output channel.
func pull(_ graph: Graph, frames: Int, slice: Int = 256) -> [[Float]] {
    let channels = max(1, graph.plan?.outputChannelCount ?? 2)
    let output = AudioBufferList(channelCount: channels, frameCapacity: slice)
    var result = Array(repeating: [Float](), count: channels)
    var done = 0
    while done < frames {
        let count = min(slice, frames - done)
        let status = graph.engine.render(frameCount: count, timeStamp: AudioTimeStamp(sampleTime: Int64(done)), input: .empty, output: output[0])
        precondition(status == .ok, "render failed: \(status)")
        for channel in 0..<channels { result[channel] += output.samples(channel: channel, frameCount: count) }
        done += count
    }
    return result
}

/// Renders a session's graph with its input channels fed from `input` (one array per channel).
func render(_ graph: Graph, frames: Int, input: [[Float]]) -> [[Float]] {
    let slice = graph.maximumFrames
    let channels = max(1, graph.plan?.outputChannelCount ?? 2)
    let output = AudioBufferList(channelCount: channels, frameCapacity: slice)
    let source = AudioBufferList(channelCount: max(1, input.count), frameCapacity: slice)
    var result = Array(repeating: [Float](), count: channels)
    var done = 0
    while done < frames {
        let count = min(slice, frames - done)
        for (channel, samples) in input.enumerated() {
            for frame in 0..<count { source[0][channel][frame] = done + frame < samples.count ? samples[done + frame] : 0 }
        }
        let status = graph.engine.render(frameCount: count, timeStamp: AudioTimeStamp(sampleTime: Int64(done)), input: source[0], output: output[0])
        precondition(status == .ok, "render failed: \(status)")
        for channel in 0..<channels { result[channel] += output.samples(channel: channel, frameCount: count) }
        done += count
    }
    return result
}
