import Foundation
import Synchronization
import TrellisControl

/// One set of meters for every page: a control client of the desk's own watches every
/// output bus of the session's graph and every recorder, 30 times a second, and hands
/// each reading to every page whose watch takes `meter` events. However many pages are
/// open, each bus is metered once (a meter is an observer on the audio thread) and each
/// reading encoded once.
///
/// Thread: any.
final class MeterFeed: Sendable {
    static let rate = 30

    private struct State {
        var clients: [Int: WebClient] = [:]
        var watching = false
        var nextRequest = 1
    }

    /// What the feed's peer shares with it: the pages, and how to look at the graph again.
    private final class Shared: Sendable {
        let state = Mutex(State())
        let refresh = Mutex<(@Sendable () -> Void)?>(nil)
    }

    private let dispatcher: ControlDispatcher
    private let shared = Shared()
    private let peer: ControlPeer

    init(dispatcher: ControlDispatcher) {
        self.dispatcher = dispatcher
        let shared = self.shared
        peer = ControlPeer(name: "web desk meters", mode: .json, takesFrames: true) { line in
            // A meter frame: every bus's line, joined.
            if line.hasPrefix(#"{"id":"meters","event":"meter""#) {
                for client in shared.state.withLock({ Array($0.clients.values) }) { client.queueEvent(line, kind: .meter) }
            } else {
                // The graph changed: the buses to meter may have.
                shared.refresh.withLock { $0 }?()
            }
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
        if last { dispatcher.handle(line: #"{"id": "off", "command": "watch off"}"#, from: peer) { _ in } }
    }

    /// Asks for the graph, then watches its buses (and the edits that change them).
    private func watch() {
        let id = shared.state.withLock { state -> Int in
            defer { state.nextRequest += 1 }
            return state.nextRequest
        }
        dispatcher.handle(line: #"{"id": \#(id), "command": "describe"}"#, from: peer) { [self] reply in
            guard shared.state.withLock({ !$0.clients.isEmpty }) else { return }
            let buses = Self.buses(inDescription: reply)
            let meters = buses.isEmpty ? "" : " meters=" + buses.joined(separator: ",")
            dispatcher.handle(line: #"{"id": "meters", "command": "watch events=edit,graph\#(meters) rate=\#(Self.rate)"}"#, from: peer) { _ in }
        }
    }

    /// Every output bus of the graph `describe` answered (`node.bus`), and its recorders.
    static func buses(inDescription reply: String) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
              let result = object["result"] as? [String: Any] else { return [] }
        var buses: [String] = []
        for node in result["nodes"] as? [[String: Any]] ?? [] {
            guard let name = node["name"] as? String, let outputs = node["outputs"] as? [Any] else { continue }
            buses += outputs.indices.map { "\(name).\($0)" }
        }
        for recorder in result["recorders"] as? [[String: Any]] ?? [] {
            if let name = recorder["name"] as? String { buses.append(name) }
        }
        return buses
    }
}
