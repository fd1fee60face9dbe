import Foundation
import Synchronization
import TrellisControl

/// One set of meters for every page: a control client of the desk's own watches every
/// output bus of the session's graph and every recorder, and hands each frame of readings
/// to every page whose watch takes `meter` events. The strips' buses (what feeds each
/// input of a multichannel mixer, and its output) and the recorders are read 30 times a
/// second; the graph's other buses, drawn as small bars, every other frame. However many
/// pages are open, each bus is metered once (a meter is an observer on the audio thread)
/// and each frame encoded once.
///
/// Thread: any.
final class MeterFeed: Sendable {
    static let stripRate = 30

    private struct State {
        var clients: [Int: WebClient] = [:]
        var watching = false
        var nextRequest = 1
    }

    /// What the feed's peer shares with it: the pages, and how to look at the graph again.
    private final class Shared: Sendable {
        let state = Mutex(State())
        let refresh = Mutex<(@Sendable () -> Void)?>(nil)

        /// Hands a meter frame (every bus's line, joined) to every page; false for a
        /// line that is not one.
        @discardableResult
        func handOut(_ line: String) -> Bool {
            guard line.hasPrefix(#"{"id":"meters","event":"meter""#) else { return false }
            for client in state.withLock({ Array($0.clients.values) }) { client.sendMeterFrame(line) }
            return true
        }
    }

    private let dispatcher: ControlDispatcher
    private let shared = Shared()
    /// Watches the graph's buses and recorders, and the edits that change the graph.
    private let peer: ControlPeer

    init(dispatcher: ControlDispatcher) {
        self.dispatcher = dispatcher
        let shared = self.shared
        peer = ControlPeer(name: "web desk meters", mode: .json, takesFrames: true) { line in
            // Anything but a meter frame is an edit or graph event: the buses to meter may
            // have changed.
            if !shared.handOut(line) { shared.refresh.withLock { $0 }?() }
            return true
        }
        shared.refresh.withLock { $0 = { [weak self] in self?.watch() } }
    }

    /// A page joins; the first starts the meters. Thread: any.
    func add(_ client: WebClient, number: Int) {
        let first = shared.state.withLock { state in
            state.clients[number] = client
            return state.clients.count == 1
        }
        if first { watch() }
    }

    /// A page leaves; the last stops the meters. Thread: any.
    func remove(number: Int) {
        let last = shared.state.withLock { state in
            state.clients[number] = nil
            return state.clients.isEmpty
        }
        guard last else { return }
        dispatcher.handle(line: #"{"id": "off", "command": "watch off"}"#, from: peer) { _ in }
    }

    /// Asks for the graph, then watches its buses (and the edits that change them).
    private func watch() {
        let id = shared.state.withLock { state -> Int in
            defer { state.nextRequest += 1 }
            return state.nextRequest
        }
        dispatcher.handle(line: #"{"id": \#(id), "command": "describe"}"#, from: peer) { [self] reply in
            guard shared.state.withLock({ !$0.clients.isEmpty }) else { return }
            let (strips, others) = Self.buses(inDescription: reply)
            let meters = (strips.isEmpty ? "" : " meters=" + strips.joined(separator: ","))
                + (others.isEmpty ? "" : " slow-meters=" + others.joined(separator: ","))
            dispatcher.handle(line: #"{"id": "meters", "command": "watch events=edit,graph\#(meters) loudness rate=\#(Self.stripRate)"}"#, from: peer) { _ in }
        }
    }

    /// Every output bus of the graph `describe` answered (`node.bus`) and its recorders:
    /// the strips' buses and the recorders first, then the others.
    static func buses(inDescription reply: String) -> (strips: [String], others: [String]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
              let result = object["result"] as? [String: Any] else { return ([], []) }
        let nodes = result["nodes"] as? [[String: Any]] ?? []
        let connections = result["connections"] as? [[String: Any]] ?? []
        var strips: [String] = []
        for node in nodes where node["kind"] as? String == "mixer" && (node["triple"] as? String)?.hasPrefix("aumx:mcmx") == true {
            guard let name = node["name"] as? String else { continue }
            for index in (node["inputs"] as? [Any] ?? []).indices {
                if let source = connections.first(where: { $0["to"] as? String == "\(name).\(index)" })?["from"] as? String {
                    strips.append(source)
                }
            }
            strips.append("\(name).0")
        }
        for recorder in result["recorders"] as? [[String: Any]] ?? [] {
            if let name = recorder["name"] as? String { strips.append(name) }
        }
        var others: [String] = []
        for node in nodes {
            guard let name = node["name"] as? String, let outputs = node["outputs"] as? [Any] else { continue }
            others += outputs.indices.map { "\(name).\($0)" }.filter { !strips.contains($0) }
        }
        var seen = Set<String>()
        return (strips.filter { seen.insert($0).inserted }, others)
    }
}
