import Foundation
import Testing
import TrellisControl
import TrellisCore
import TrellisGraph
import TrellisLV2
import TrellisMedia
import TrellisSession
import TrellisUnits

/// A fresh folder under the system's temporary folder.
func temporaryFolder() throws -> String {
    let path = NSTemporaryDirectory() + "trellis-control-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Built-in units, and LV2 plugins by URI on demand, as the command line has them.
func controlRegistry() -> ComponentRegistry {
    let registry = BuiltInUnits.registry()
    try! MediaUnits.register(into: registry)
    LV2Components.addResolver(to: registry, world: sharedWorld)
    return registry
}

/// Scanned before any test's session starts, as `trellis run`'s kept catalog would be:
/// a first scan inside a request would outlast the clients' reply timeout.
nonisolated(unsafe) let sharedWorld: LV2World = {
    let world = LV2World()
    _ = world.scannedCatalog()
    return world
}()

/// A mono 1 kHz sine at amplitude 0.5 through a gain stage to the output.
let toneSession = """
    version: 1
    defaults: { sample-rate: 48000, block-size: 256 }
    nodes:
      tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
      trim: { unit: gain, channels: 1 }
      out: { unit: output, channels: 1 }
    connections:
      - tone1 -> trim
      - trim -> out
    """

/// Writes `text` to `name` in `folder` and returns the path.
@discardableResult
func write(_ text: String, to name: String, in folder: String) throws -> String {
    let path = folder + "/" + name
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    return path
}

/// A session, its dispatcher and a line server on a socket in a temporary folder.
final class ControlRig: @unchecked Sendable {
    let folder: String
    let target: any ControlTarget
    let dispatcher: ControlDispatcher
    let server: LineServer
    /// What a TCP rig's clients show.
    let secret = ControlSecret.random()
    var socketPath: String { if case .unix(let path) = server.endpoint { path } else { "" } }

    init(session text: String = toneSession, endpoint: ControlEndpoint? = nil, limits: LineServer.Limits = .init(),
         options: SessionLoadOptions = .init(), fileTimeout: Double = 10,
         makeTarget: ((LoadedSession) throws -> any ControlTarget)? = nil) throws {
        folder = try temporaryFolder()
        let path = try write(text, to: "session.yaml", in: folder)
        let session = try SessionLoader.load(path: path, registry: controlRegistry(), options: options)
        target = try makeTarget?(session) ?? ControlledSession(session: session, registry: session.graph.registry)
        dispatcher = ControlDispatcher(target: target, fileTimeout: fileTimeout)
        let endpoint = endpoint ?? .unix(path: folder + "/control.sock")
        server = try LineServer(endpoint: endpoint, dispatcher: dispatcher, secret: endpoint.isTCP ? secret : nil, limits: limits)
        server.start()
    }

    func client() throws -> ControlClient { try ControlClient(endpoint: server.endpoint, secret: server.endpoint.isTCP ? secret : nil) }

    /// One command on a fresh connection.
    func ask(_ line: String) throws -> String {
        let client = try client()
        return try client.request(line)
    }

    var graph: Graph { target.session.graph }

    func stop() {
        server.stop()
        dispatcher.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// The word after `key=` in a reply line.
func field(_ key: String, in line: String) -> String? {
    for word in line.split(separator: " ") where word.hasPrefix(key + "=") { return String(word.dropFirst(key.count + 1)) }
    return nil
}

/// The first channel's number of a `peak=` or `average=` field.
func level(_ key: String, in line: String) -> Float? {
    field(key, in: line).flatMap { $0.split(separator: ",").first }.flatMap { Float(String($0)) }
}

/// `20·log10(amplitude)`.
func decibels(_ amplitude: Double) -> Float { Float(20 * log10(amplitude)) }

extension ControlEndpoint {
    var isTCP: Bool { if case .tcp = self { true } else { false } }
}
