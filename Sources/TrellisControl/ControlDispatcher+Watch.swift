import Foundation
import TrellisCore
import TrellisEngine
import TrellisGraph

extension ControlDispatcher {
    func meter(_ bus: BusName) throws(ControlError) -> ControlReply {
        let slot = meters[bus] ?? MeterSlot(bus: bus)
        meters[bus] = slot
        let (meter, fresh) = try slot.meter(in: graph)
        if fresh { waitForFirstWindow(meter) }
        return meterReply(slot, meter.read())
    }

    /// A fresh meter has seen nothing; wait (briefly) for 50 ms of audio when a backend runs.
    private func waitForFirstWindow(_ meter: LevelMeter) {
        guard graph.engine.isRendering || target.head != nil else { return }
        let wanted = max(1, Int(graph.sampleRate / 20))
        let deadline = Date().addingTimeInterval(0.5)
        while meter.framesObserved < wanted && Date() < deadline { usleep(2_000) }
    }

    func meterReply(_ slot: MeterSlot, _ levels: LevelMeter.Levels) -> ControlReply {
        let event = meterEvent(slot, levels)
        return .ok(text: event.text, value: event.data)
    }

    func meterEvent(_ slot: MeterSlot, _ levels: LevelMeter.Levels) -> ControlEvent {
        let name = slot.source.map { "\($0.node).\($0.bus)" } ?? slot.bus.description
        func list(_ values: [Float]) -> String { values.map { String(format: "%.2f", $0) }.joined(separator: ",") }
        let text = "\(name) peak=\(list(levels.peak)) average=\(list(levels.average)) frames=\(levels.frames)"
        let data = ControlValue.object([
            ("bus", .string(name)), ("peak", .array(levels.peak.map { .number($0) })),
            ("average", .array(levels.average.map { .number($0) })), ("frames", .number(levels.frames)),
        ])
        return ControlEvent(kind: .meter, text: text, data: data)
    }

    func watch(_ request: WatchRequest, peer: ControlPeer, id: ControlValue) throws(ControlError) -> ControlReply {
        stopWatching(peer)
        let slots = request.meters.map { MeterSlot(bus: $0) }
        for slot in slots { _ = try slot.meter(in: graph) }
        let watch = ControlPeer.Watch(request: request, id: id, meters: slots)
        if !slots.isEmpty {
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let interval = 1 / request.rate
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self, weak peer, weak watch] in
                guard let self, let peer, let watch else { return }
                for slot in watch.meters {
                    guard let (meter, _) = try? slot.meter(in: self.graph) else { continue }
                    peer.send(self.meterEvent(slot, meter.read()))
                }
            }
            watch.timer = timer
            timer.resume()
        }
        peer.state.withLock { $0.watch = watch }
        peers.withLock { $0[ObjectIdentifier(peer)] = peer }
        let kinds = request.kinds.map(\.rawValue).sorted()
        return .ok(text: "events=\(kinds.joined(separator: ","))" + (slots.isEmpty ? "" : " meters=\(request.meters.map(\.description).joined(separator: ",")) rate=\(request.rate)"),
                   value: .object([("events", .array(kinds.map { .string($0) })), ("meters", .array(request.meters.map { .string($0.description) })), ("rate", .number(request.rate))]))
    }

    /// Thread: the dispatcher's queue.
    func stopWatching(_ peer: ControlPeer) {
        let watch = peer.state.withLock { state in
            let watch = state.watch
            state.watch = nil
            return watch
        }
        peers.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(peer)) }
        guard let watch else { return }
        watch.timer?.cancel()
        for slot in watch.meters { slot.remove() }
    }

    /// Hands an event to every watching peer; never waits for any of them. Thread: any.
    func broadcast(_ event: ControlEvent) {
        for peer in peers.withLock({ Array($0.values) }) { peer.send(event) }
    }
}
