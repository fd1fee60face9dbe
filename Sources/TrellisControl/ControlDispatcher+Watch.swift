import Foundation
import Synchronization
import TrellisCore
import TrellisGraph
import TrellisMedia


extension ControlDispatcher {
    func meter(_ bus: BusName) throws(ControlError) -> ControlReply {
        let slot = meters[bus] ?? MeterSlot(bus: bus)
        meters[bus] = slot
        let (meter, fresh) = try locked { () throws(ControlError) in try slot.meter(in: graph, recorders: recorders) }
        if fresh { waitForFirstWindow(meter) }
        return meterReply(slot, meter)
    }

    /// A fresh meter has seen nothing: when a backend runs, wait until the program that
    /// feeds it is playing and 50 ms more have passed.
    private func waitForFirstWindow(_ meter: any LevelMeter) {
        guard graph.engine.isRendering || target.liveBackend != nil else { return }
        let deadline = Date().addingTimeInterval(0.5)
        while graph.engine.hasPendingProgram && Date() < deadline { usleep(1_000) }
        usleep(50_000)
    }

    /// `meter BUS loudness [reset]`: the bus's EBU R128 figures since its loudness meter
    /// was installed (by the first such request) or last reset.
    func loudness(_ bus: BusName, _ request: MeterLoudness) throws(ControlError) -> ControlReply {
        let slot = meters[bus] ?? MeterSlot(bus: bus)
        meters[bus] = slot
        let fresh = slot.loudness == nil
        let found = try locked { () throws(ControlError) in try slot.loudness(in: graph, recorders: recorders) }
        guard let loudness = found else {
            throw ControlError(.graph, "\(bus) is a recorder: meter the node it records for its loudness")
        }
        // A fresh meter has measured nothing: while audio runs, wait for its first gating
        // block (400 ms), so the first reading has every figure.
        if fresh, graph.engine.isRendering || target.liveBackend != nil {
            let deadline = Date().addingTimeInterval(1)
            while loudness.measuredSeconds < 0.4 && Date() < deadline { usleep(10_000) }
        }
        if request == .reset {
            // Every reading of this bus starts over: this one, and the watches' (a desk's).
            let watched = peers.withLock { Array($0.values) }.compactMap { $0.state.withLock { $0.watch } }
            for other in watched.flatMap(\.meters) where other.name == slot.name { other.loudness?.reset() }
            loudness.reset()
        }
        let reading = MeterReading.Loudness(loudness.reading)
        return .ok(text: slot.name + " " + reading.text, value: .object([("bus", .string(slot.name))] + reading.members))
    }

    func meterReply(_ slot: MeterSlot, _ meter: any LevelMeter) -> ControlReply {
        let reading = MeterReading(bus: slot.name, closing: meter)
        return .ok(text: reading.text, value: reading.value)
    }

    /// Closes the window of every meter the frame reads and sends the readings to `peer`:
    /// one look at the graph for the whole frame. Thread: the dispatcher's queue.
    func sendMeterFrame(_ watch: ControlPeer.Watch, to peer: ControlPeer) {
        let slots = watch.nextFrame()
        watch.open.removeAll(keepingCapacity: true)
        target.withGraphLocked {
            let graph = self.graph, recorders = self.recorders
            for slot in slots {
                guard let meter = try? slot.meter(in: graph, recorders: recorders).meter else { continue }
                let loudness = slot.withLoudness ? (try? slot.loudness(in: graph, recorders: recorders)) ?? nil : nil
                watch.open.append((slot, meter, loudness))
            }
        }
        if peer.takesJSONFrames {
            watch.frame.removeAll()
            for (slot, meter, loudness) in watch.open {
                watch.frame.append(bus: slot.quotedName, closing: meter, loudness: loudness.map { MeterReading.Loudness($0.reading) })
            }
            peer.send(frame: watch.frame)
        } else {
            peer.send(watch.open.map { open in
                var reading = MeterReading(bus: open.slot.name, closing: open.meter)
                reading.loudness = open.loudness.map { MeterReading.Loudness($0.reading) }
                return reading
            })
        }
        if desk.parameterCarrier == ObjectIdentifier(watch) { sendParameterChanges() }
    }

    func watch(_ request: WatchRequest, peer: ControlPeer, id: ControlValue) throws(ControlError) -> ControlReply {
        stopWatching(peer)
        let slots = (request.meters + request.slowMeters).map { MeterSlot(bus: $0) }
        // Loudness for the buses read every frame (a desk's strips), not the slow ones.
        for slot in slots.prefix(request.meters.count) { slot.withLoudness = request.loudness }
        for slot in slots {
            try locked { () throws(ControlError) in
                _ = try slot.meter(in: graph, recorders: recorders)
                if slot.withLoudness { _ = try slot.loudness(in: graph, recorders: recorders) }
            }
        }
        let watch = ControlPeer.Watch(request: request, id: id, meters: slots, everyFrame: request.meters.count)
        if !slots.isEmpty {
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let interval = 1 / request.rate
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self, weak peer, weak watch] in
                guard let self, let peer, let watch else { return }
                self.sendMeterFrame(watch, to: peer)
            }
            watch.timer = timer
            timer.resume()
        }
        if request.timeInterval != nil || !request.boundaries.isEmpty {
            watch.playerObservers = observePlayers(request, for: peer)
        }
        peer.state.withLock { $0.watch = watch }
        peers.withLock { $0[ObjectIdentifier(peer)] = peer }
        updateParameterWatch()
        let kinds = request.kinds.map(\.rawValue).sorted()
        let slow = request.slowMeters.map(\.description)
        let slowText = slow.isEmpty ? "" : " slow-meters=" + slow.joined(separator: ",")
        let slowValue: [(String, ControlValue)] = slow.isEmpty ? [] : [("slow-meters", .array(slow.map { .string($0) }))]
        return .ok(text: "events=\(kinds.joined(separator: ","))" + (slots.isEmpty ? "" : " meters=\(request.meters.map(\.description).joined(separator: ","))\(slowText) rate=\(request.rate)"),
                   value: .object([("events", .array(kinds.map { .string($0) })), ("meters", .array(request.meters.map { .string($0.description) }))]
                                  + slowValue + [("rate", .number(request.rate))]))
    }

    /// Thread: the dispatcher's queue.
    func stopWatching(_ peer: ControlPeer) {
        let watch = peer.state.withLock { state in
            let watch = state.watch
            state.watch = nil
            return watch
        }
        peers.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(peer)) }
        updateParameterWatch()
        guard let watch else { return }
        watch.timer?.cancel()
        for (player, token) in watch.playerObservers { player.removeObserver(token) }
        target.withGraphLocked { for slot in watch.meters { slot.remove() } }
    }

    /// Time observers on every file player of the graph for one watching peer: periodic
    /// `time` events, and `boundary` events as a player plays past a boundary (found
    /// within 10 ms, placed on its frame). Thread: the dispatcher's queue.
    private func observePlayers(_ request: WatchRequest, for peer: ControlPeer) -> [(FilePlayer, MediaListenerToken)] {
        var tokens: [(FilePlayer, MediaListenerToken)] = []
        for node in graph.nodes {
            guard let player = node.unit as? FilePlayer else { continue }
            let name = node.name
            if let interval = request.timeInterval {
                tokens.append((player, player.addTimeObserver(interval: interval) { [weak peer] time in
                    peer?.send(ControlEvent(
                        kind: .time, text: "\(name) seconds=\(String(format: "%.3f", time.seconds)) frame=\(time.frame) sampleTime=\(time.sampleTime)",
                        data: .object([("node", .string(name)), ("seconds", .number(time.seconds)), ("frame", .number(Double(time.frame))),
                                       ("sampleTime", .number(Double(time.sampleTime)))])))
                }))
            }
            guard !request.boundaries.isEmpty else { continue }
            let boundaries = request.boundaries
            let rate = graph.sampleRate
            let last = Mutex<Double>(-1)
            tokens.append((player, player.addTimeObserver(interval: 0.01) { [weak peer] time in
                let previous = last.withLock { value in
                    defer { value = time.seconds }
                    return value
                }
                // A jump back (a seek, a loop, a new play) starts over.
                let from = time.seconds < previous ? -1 : previous
                for boundary in boundaries where boundary > from && boundary <= time.seconds {
                    let at = time.sampleTime - Int64(((time.seconds - boundary) * rate).rounded())
                    peer?.send(ControlEvent(
                        kind: .boundary, text: "\(name) at=\(String(format: "%.3f", boundary)) sampleTime=\(at)",
                        data: .object([("node", .string(name)), ("at", .number(boundary)), ("sampleTime", .number(Double(at)))])))
                }
            }))
        }
        return tokens
    }

    /// Watches the graph's MIDI file players for the end of their song, every 20 ms
    /// while there are any: an `eof` event when one plays to its end. Queue only.
    func watchSongs() {
        var current: [ObjectIdentifier: (player: MIDIFilePlayer, name: String, ended: Bool)] = [:]
        for node in graph.nodes {
            guard let player = node.unit as? MIDIFilePlayer else { continue }
            let key = ObjectIdentifier(player)
            current[key] = songs[key] ?? (player, node.name, player.hasEnded)
        }
        songs = current
        guard !songs.isEmpty else {
            songTimer?.cancel()
            songTimer = nil
            return
        }
        guard songTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 0.02, repeating: 0.02)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            for (key, song) in songs {
                let ended = song.player.hasEnded
                guard ended != song.ended else { continue }
                songs[key]?.ended = ended
                if ended {
                    broadcast(ControlEvent(kind: .eof, text: "\(song.name) song ended",
                                           data: .object([("node", .string(song.name)), ("song", .bool(true))])))
                }
            }
        }
        songTimer = timer
        timer.resume()
    }

    /// Listens for the end of file of every file player in the graph, once each.
    /// Thread: the dispatcher's queue.
    func listenToPlayers() {
        watchSongs()
        var live = Set<ObjectIdentifier>()
        for node in graph.nodes {
            guard let player = node.unit as? FilePlayer else { continue }
            let key = ObjectIdentifier(player)
            live.insert(key)
            guard playerListeners[key] == nil else { continue }
            let name = node.name
            let token = player.addListener { [weak self] notification in
                guard let event = ControlEvent.from(notification, node: name) else { return }
                self?.broadcast(event)
            }
            playerListeners[key] = (player, token)
        }
        for (key, entry) in playerListeners where !live.contains(key) {
            entry.player.removeObserver(entry.token)
            playerListeners[key] = nil
        }
    }

    /// Hands an event to every watching peer; never waits for any of them. Thread: any.
    func broadcast(_ event: ControlEvent) {
        for peer in peers.withLock({ Array($0.values) }) { peer.send(event) }
    }
}
