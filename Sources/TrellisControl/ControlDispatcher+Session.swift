import Foundation
import TrellisCore
import TrellisGraph
import TrellisJACK
import TrellisSession

extension ControlDispatcher {
    func save(_ path: String?) throws(ControlError) -> ControlReply {
        let session = target.session
        guard let destination = path ?? session.path else {
            throw ControlError(.session, "the session was not loaded from a file: name one (save PATH)")
        }
        do { try session.save(to: destination) } catch { throw ControlError(.session, error.description) }
        return .ok(text: destination, value: .object([("path", .string(destination))]))
    }

    /// Builds the file's graph on the running engine at the running rate and period; its
    /// first program replaces the old one at a cycle boundary. A file that fails to
    /// load changes nothing.
    func load(_ path: String) throws(ControlError) -> ControlReply {
        let current = target.session
        let options = SessionLoadOptions(
            sampleRate: current.graph.sampleRate, blockSize: current.graph.maximumFrames, engine: current.graph.engine)
        let loaded: LoadedSession
        do { loaded = try SessionLoader.load(path: path, registry: target.registry, options: options) } catch {
            throw ControlError(.session, error.description)
        }
        target.replace(with: loaded)
        // The old graph's meters went with it; they are installed again on first use.
        var warnings = loaded.warnings.map(\.description)
        if let head = target.head, let spec = loaded.jack {
            let configuration = head.configuration
            if spec.inputs.count != configuration.inputChannels || spec.outputs.count != configuration.outputChannels {
                warnings.append("the session's JACK ports (\(spec.inputs.count) in, \(spec.outputs.count) out) differ from the running client's (\(configuration.inputChannels) in, \(configuration.outputChannels) out); the ports stay as they are until restart")
            }
        }
        broadcast(ControlEvent(kind: .graph, text: "loaded \(path)", data: .object([("loaded", .string(path))])))
        let text = "\(loaded.graph.nodes.count) nodes, \(loaded.graph.connections.count) connections" + warnings.map { "; warning: \($0)" }.joined()
        return .ok(text: text, value: .object([
            ("path", .string(path)), ("nodes", .number(loaded.graph.nodes.count)), ("connections", .number(loaded.graph.connections.count)),
            ("warnings", .array(warnings.map { .string($0) })),
        ]))
    }

    func status() -> ControlReply {
        let graph = self.graph
        var members: [(String, ControlValue)] = [
            ("sampleRate", .number(graph.sampleRate)), ("maximumFrames", .number(graph.maximumFrames)),
            ("nodes", .number(graph.nodes.count)), ("latency", .number(graph.latency)),
        ]
        var words = ["rate=\(Int(graph.sampleRate))", "block=\(graph.maximumFrames)", "nodes=\(graph.nodes.count)", "latency=\(graph.latency)"]
        if let head = target.head {
            let status = head.status()
            let phase = "\(status.phase)"
            members += [
                ("jack", .string(phase)), ("client", .string(status.clientName)), ("period", .number(status.bufferFrames)),
                ("xruns", .number(status.xrunCount)), ("cycles", .number(status.cycleCount)), ("dspLoad", .number(status.dspLoad)),
                ("silencedCycles", .number(status.silencedCycleCount)), ("interruptions", .number(status.interruptionCount)),
            ]
            words += [
                "jack=\(phase)", "client=\(status.clientName)", "period=\(status.bufferFrames)", "xruns=\(status.xrunCount)",
                "cycles=\(status.cycleCount)", "dsp=\(String(format: "%.3f", status.dspLoad))", "silenced=\(status.silencedCycleCount)",
            ]
        } else {
            members.append(("jack", .string("none")))
            words.append("jack=none")
        }
        return .ok(text: words.joined(separator: " "), value: .object(members))
    }

    func jack(connect: Bool, port: String, peer: String) throws(ControlError) -> ControlReply {
        guard let head = target.head else { throw ControlError(.noJACK, "the session runs without JACK") }
        let warnings: [JACKWarning]
        do {
            warnings = connect ? try head.connect(JACKConnectionRule(ports: port, peers: peer)) : try head.disconnect(port: port, from: peer)
        } catch { throw ControlError(.jack, error.description) }
        if !warnings.isEmpty { throw ControlError(.jack, warnings.map(\.description).joined(separator: "; ")) }
        let links = head.status().connections.map(\.description)
        return .ok(text: links.joined(separator: ", "), value: .array(links.map { .string($0) }))
    }

    func transport(_ action: TransportAction, _ name: String) throws(ControlError) -> ControlReply {
        let found = try node(name)
        guard let player = found.unit as? any ControllablePlayer else {
            throw ControlError(.unsupported, "\(action.verb) needs a file player node; \(name) is \(found.unit.name)")
        }
        do {
            switch action {
            case .play: try player.controlPlay()
            case .pause: try player.controlPause()
            case .stop: try player.controlStop()
            case .seek(let seconds): try player.controlSeek(seconds: seconds)
            }
        } catch { throw ControlError(.unsupported, "node \(name): \(error)") }
        return .ok(text: player.controlState, value: .object([("node", .string(name)), ("state", .string(player.controlState))]))
    }

    func record(start: Bool, recorder: String?) throws(ControlError) -> ControlReply {
        let recorders = target.session.recorders
        guard let controllable = target as? any ControllableRecording else {
            let count = recorders.count
            throw ControlError(.unsupported, "recording is not available here: the session names \(count) recorder\(count == 1 ? "" : "s") and no recorder runs them")
        }
        let names: [String]
        do { names = try controllable.setRecording(start, recorder: recorder) } catch { throw ControlError(.session, "\(error)") }
        return .ok(text: names.joined(separator: " "), value: .array(names.map { .string($0) }))
    }
}

/// A unit `play`, `pause`, `stop` and `seek` drive: the file player.
public protocol ControllablePlayer: AnyObject {
    func controlPlay() throws
    func controlPause() throws
    func controlStop() throws
    func controlSeek(seconds: Double) throws
    /// `playing`, `paused` or `stopped`.
    var controlState: String { get }
}

/// A target whose session's recorders `record start|stop` drives; returns the
/// recorders that changed.
public protocol ControllableRecording: ControlTarget {
    func setRecording(_ on: Bool, recorder: String?) throws -> [String]
}
