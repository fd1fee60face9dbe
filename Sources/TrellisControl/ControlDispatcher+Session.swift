import Foundation
import TrellisCore
import TrellisGraph
import TrellisAudioFile
import TrellisMedia
import TrellisSession

extension ControlDispatcher {
    /// A path from the protocol: a relative one is in the session's folder, not in
    /// whatever folder `trellis run` happened to start in.
    func resolve(_ path: String) throws(ControlError) -> String {
        if path.hasPrefix("/") { return path }
        guard let folder = sessionFolder else {
            throw ControlError(.session, "\(path) is relative and the session was not loaded from a file: give an absolute path")
        }
        return (folder.hasSuffix("/") ? folder : folder + "/") + path
    }

    /// What `save` writes, as the session is now, and where.
    func saveSnapshot(_ path: String?) throws(ControlError) -> (document: SessionDocument, path: String) {
        let session = target.session
        guard let destination = try path.map(resolve) ?? session.path else {
            throw ControlError(.session, "the session was not loaded from a file: name one (save PATH)")
        }
        var document = session.document()
        if let backend = target.liveBackend, !jackEdits.isEmpty {
            document.jack = (document.jack ?? JackSpec(location: document.location)).applying(jackEdits, live: Self.links(of: backend))
        }
        return (document, destination)
    }

    /// The backend's links now, by our short port name.
    static func links(of backend: any LiveBackend) -> [JackConnectionEdit] {
        guard let ports = backend.portConnections else { return [] }
        let client = backend.liveStatus(peek: true).clientName
        let receiving = Set(ports.receivingPortNames)
        return ports.connections().map { link in
            let port = link.port.hasPrefix(client + ":") ? String(link.port.dropFirst(client.count + 1)) : link.port
            return JackConnectionEdit(port: port, peer: link.peer, connected: true, portReceives: receiving.contains(port))
        }
    }

    /// Puts a session built from `path` on the running engine (see `loadJob`) in place of
    /// the running one: its first program replaces the old at a cycle boundary. A session
    /// that fails to initialize changes nothing.
    func load(_ loaded: LoadedSession, from path: String) throws(ControlError) -> ControlReply {
        let current = target.session
        // A recorder taking a take goes on into the new session when that names it too:
        // attached to the new graph before its first program, it loses no frame.
        let running = recorders.filter { $0.value.isRecording || $0.value.recorderState == .paused }
        var carried: [String: FileRecorder] = [:]
        for (name, recorder) in running where loaded.carry(recorder, as: name) { carried[name] = recorder }
        do { try loaded.initialize() } catch { throw ControlError(.session, error.description) }
        try target.replaceSession(with: loaded)
        jackEdits = []
        var warnings = loaded.warnings.map(\.description)
        // The other recorders watched the old graph only: their takes end here, complete.
        let stopped = running.keys.filter { carried[$0] == nil }.sorted()
        for name in stopped { _ = try? recorders[name]?.stop() }
        var carriedTakes: [String: String] = [:]
        for name in carried.keys {
            carriedTakes[name] = takePaths[name] ?? current.recorders.first { $0.name == name }?.path
        }
        // Streams watched the old graph: they end, and their connections close.
        for (peer, stream) in streams.values {
            stream.end()
            peer.finish()
        }
        streams = [:]
        // Taps watched the old graph too: their files end here, complete.
        let endedTaps = taps.keys.map(\.description).sorted()
        for tap in taps.values { _ = try? tap.recorder.stop() }
        taps = [:]
        if !endedTaps.isEmpty { warnings.append("tap\(endedTaps.count == 1 ? "" : "s") \(endedTaps.joined(separator: ", ")) ended with the old session; the files are complete") }
        if !stopped.isEmpty {
            warnings.append("recorder\(stopped.count == 1 ? "" : "s") \(stopped.joined(separator: ", ")) stopped with the old session; the files are complete")
        }
        if !carried.isEmpty {
            warnings.append("recorder\(carried.count == 1 ? "" : "s") \(carried.keys.sorted().joined(separator: ", ")) went on recording into the new session")
        }
        do {
            let attached = try loaded.attachRecorders(keeping: carried)
            replaceRecorders(with: Dictionary(uniqueKeysWithValues: zip(loaded.recorders.map(\.name), attached)))
            takePaths.merge(carriedTakes) { _, kept in kept }
            let waiting = loaded.recorders.map(\.name).filter { carried[$0] == nil }
            if !waiting.isEmpty {
                warnings.append("the new session's recorder\(waiting.count == 1 ? "" : "s") \(waiting.joined(separator: ", ")) \(waiting.count == 1 ? "is" : "are") ready and not recording: record start begins \(waiting.count == 1 ? "it" : "them")")
            }
        } catch {
            for recorder in carried.values { _ = try? recorder.stop() }
            replaceRecorders(with: [:])
            warnings.append("the new session's recorders cannot record: \(error)")
        }
        // The old graph's meters went with it; they are installed again on first use.
        listenToPlayers()
        listenToProperties()
        // Undo works within one graph; the loaded one starts a history of its own.
        history.clear()
        noteLoaded()
        if desk.watchesParameters { desk.watched = watchedParameters() }
        // A session that says how its transport starts sets it; one that does not leaves it.
        if let transport = loaded.loadedDocument.transport { loaded.startClock(transport, rolling: nil) }
        if let warning = loaded.rateWarning(runningAt: current.graph.sampleRate) { warnings.append(warning) }
        if let backend = target.liveBackend, let spec = loaded.jack {
            let channels = backend.channelCounts
            if spec.inputs.count != channels.inputs || spec.outputs.count != channels.outputs {
                warnings.append("the session's JACK ports (\(spec.inputs.count) in, \(spec.outputs.count) out) differ from the running client's (\(channels.inputs) in, \(channels.outputs) out); the ports stay as they are until restart")
            }
        }
        broadcast(ControlEvent(kind: .graph, text: "loaded \(path)", data: .object([("loaded", .string(path))])))
        let text = "\(loaded.graph.nodes.count) nodes, \(loaded.graph.connections.count) connections" + warnings.map { "; warning: \($0)" }.joined()
        return .ok(text: text, value: .object([
            ("path", .string(path)), ("nodes", .number(loaded.graph.nodes.count)), ("connections", .number(loaded.graph.connections.count)),
            ("warnings", .array(warnings.map { .string($0) })),
        ]))
    }

    func status(peek: Bool = false) -> ControlReply {
        let graph = self.graph
        var members: [(String, ControlValue)] = [
            ("sampleRate", .number(graph.sampleRate)), ("maximumFrames", .number(graph.maximumFrames)),
            ("nodes", .number(graph.nodes.count)), ("latency", .number(graph.latency)),
        ]
        var words = ["rate=\(Int(graph.sampleRate))", "block=\(graph.maximumFrames)", "nodes=\(graph.nodes.count)", "latency=\(graph.latency)"]
        // How many threads render, and whether the schedule won: parallel, single or measuring.
        let threads = graph.engine.parallelism.threads
        let report = graph.scheduleReport
        // No report: one thread, or a graph that is one chain (nothing to share out).
        let schedule = report.map { "\($0.mode)" } ?? (threads > 1 ? "serial" : "off")
        words += ["threads=\(threads)", "schedule=\(schedule)"]
        members += [("threads", .number(threads)), ("schedule", .string(schedule)), ("scheduleDetail", .string(report?.description ?? "one thread"))]
        // Where the transport is: rolling or not, and its bars|beats|ticks.
        let time = graph.engine.transportTime
        let bars = BarBeatTick(beats: time.beat, beatsPerBar: time.beatsPerBar)
        words += ["transport=\(time.isRolling ? "rolling" : "stopped")", "bars=\(bars)"]
        members += [("transport", .string(time.isRolling ? "rolling" : "stopped")), ("bars", .string(bars.description)),
                    ("transportFrame", .number(Double(time.transportFrame))), ("tempo", .number(time.tempo))]
        let silencedNodes = nodeSilences.load(ordering: .relaxed)
        words.append("nodes-silenced=\(silencedNodes)")
        members.append(("nodesSilenced", .number(silencedNodes)))
        if let backend = target.liveBackend {
            let status = backend.liveStatus(peek: peek)
            let phase = status.phase
            members += [
                ("jack", .string(phase)), ("client", .string(status.clientName)), ("period", .number(status.period)),
                ("xruns", .number(status.xrunCount)), ("cycles", .number(status.cycleCount)), ("dspLoad", .number(status.dspLoad)),
                ("silencedCycles", .number(status.silencedCycleCount)), ("interruptions", .number(status.interruptionCount)),
                ("cpuLatency", .string(status.cpuLatency)),
                ("dspBusyNanoseconds", .number(status.busyNanoseconds)), ("dspPeriodNanoseconds", .number(status.periodNanoseconds)),
            ]
            if let reason = status.cpuLatencyRefusal { members.append(("cpuLatencyRefused", .string(reason))) }
            let peaks = status.outputPeaksDecibels
            members.append(("outputPeaks", .array(peaks.map { .number($0) })))
            words += [
                "jack=\(phase)", "client=\(status.clientName)", "period=\(status.period)", "xruns=\(status.xrunCount)",
                "cycles=\(status.cycleCount)", "dsp=\(String(format: "%.3f", status.dspLoad))", "silenced=\(status.silencedCycleCount)",
                "peaks=\(peaks.map { String(format: "%.2f", $0) }.joined(separator: ","))",
            ]
            // Only while it holds: it is what changes how the machine idles.
            if status.cpuLatency == "held" || status.cpuLatency == "cycles" { words.append("cpu-latency=\(status.cpuLatency)") }
        } else {
            members.append(("jack", .string("none")))
            words.append("jack=none")
        }
        return .ok(text: words.joined(separator: " "), value: .object(members))
    }

    func jack(connect: Bool, port: String, peer: String) throws(ControlError) -> ControlReply {
        guard let ports = target.liveBackend?.portConnections else { throw ControlError(.noJACK, "the session runs without JACK") }
        do {
            if connect { try ports.makeConnection(port: port, peer: peer) } else { try ports.breakConnection(port: port, peer: peer) }
        } catch { throw ControlError(.jack, error.description) }
        let portReceives = ports.receivingPortNames.contains { PortNamePattern.matches(port, $0) }
        jackEdits.append(JackConnectionEdit(port: port, peer: peer, connected: connect, portReceives: portReceives))
        let links = ports.connections().map(\.description)
        return .ok(text: links.joined(separator: ", "), value: .array(links.map { .string($0) }))
    }

    func player(_ name: String, for action: TransportAction) throws(ControlError) -> FilePlayer {
        let found = try node(name)
        guard let player = found.unit as? FilePlayer else {
            throw ControlError(.unsupported, "\(action.verb) needs a file player node; \(name) is \(found.unit.name)")
        }
        return player
    }

    /// Thread: any but audio (a player opens and seeks in its file here).
    func transport(_ action: TransportAction, on player: FilePlayer, named name: String) throws(ControlError) -> ControlReply {
        do {
            switch action {
            case .play: try player.play()
            case .pause: try player.pause()
            case .stop: player.stop()
            case .seek(let seconds): try player.seek(toSeconds: seconds)
            }
        } catch { throw ControlError(.unsupported, "node \(name): \(error)") }
        let state = player.transportState.rawValue
        let time = player.currentTime
        return .ok(text: "\(state) \(String(format: "%.3f", time))", value: .object([("node", .string(name)), ("state", .string(state)), ("seconds", .number(time))]))
    }

    /// Thread: the files queue (players open their files here).
    func playTogether(_ players: [(String, FilePlayer)], at asked: PlayStart?, backend: (any LiveBackend)?) throws(ControlError) -> ControlReply {
        for (name, player) in players {
            do { try player.prepare() } catch { throw ControlError(.unsupported, "node \(name): \(error); no player was started") }
            guard player.waitUntilReady(timeout: fileTimeout) else {
                throw ControlError(.timeout, "node \(name): its file did not answer within \(fileTimeout) s; no player was started")
            }
        }
        // Far enough ahead that every player's command reaches the audio thread first.
        let rate = graph.sampleRate
        let now = backend?.nextCycleSampleTime ?? 0
        let at: Int64? = switch asked {
        case .sampleTime(let frames)?: frames
        case .seconds(let seconds)?: Int64((seconds * rate).rounded())
        case .fromNow(let seconds)?: now + Int64((seconds * rate).rounded())
        case nil: nil
        }
        let start: Int64?
        if let at {
            start = at
        } else if let backend {
            let status = backend.liveStatus(peek: true)
            start = backend.nextCycleSampleTime + Int64(max(4 * status.period, Int(0.05 * status.sampleRate)))
        } else {
            start = nil
        }
        for (name, player) in players {
            do { try player.play(atSampleTime: start) } catch { throw ControlError(.unsupported, "node \(name): \(error)") }
        }
        let names = players.map(\.0)
        let when = start.map { " at \($0)" } ?? ""
        var fields: [(String, ControlValue)] = [("nodes", .array(names.map { .string($0) })), ("state", .string("playing"))]
        if let start { fields.append(("sampleTime", .number(Double(start)))) }
        return .ok(text: "playing " + names.joined(separator: " ") + when, value: .object(fields))
    }

    /// Where a player is: its state, the time and frame playing, and the file's length.
    func position(_ name: String) throws(ControlError) -> ControlReply {
        let player = try player(name, for: .play)
        let state = player.transportState.rawValue
        let frame = player.currentFrame, frames = player.fileInfo?.frameCount ?? 0
        let seconds = player.currentTime, duration = player.duration
        return .ok(text: "\(state) \(String(format: "%.3f", seconds)) of \(String(format: "%.3f", duration)) frame \(frame) of \(frames)",
                   value: .object([("node", .string(name)), ("state", .string(state)), ("seconds", .number(seconds)),
                                   ("duration", .number(duration)), ("frame", .number(Double(frame))), ("frames", .number(Double(frames)))]))
    }

    /// `record start|stop|pause|resume|meter`. `meter` closes each recorder's metering
    /// window and answers its levels, recording or not. A start of a stopped recorder never replaces an
    /// earlier take: it records into the next free numbered file (`take-2.wav`, ...)
    /// unless `overwrite` is given. Every file is checked before any recorder starts.
    func record(_ action: RecordAction, recorder name: String?, seconds: Double?, overwrite: Bool) throws(ControlError) -> ControlReply {
        let targets = target.session.recorders
        guard !recorders.isEmpty else {
            let count = targets.count
            throw ControlError(.unsupported, "recording is not available here: the session names \(count) recorder\(count == 1 ? "" : "s") and none runs")
        }
        let chosen: [String]
        if let name {
            guard recorders[name] != nil else {
                let hint = Suggestions.didYouMean(Suggestions.closest(to: name, among: Array(recorders.keys)))
                throw ControlError(.unknownNode, "no recorder named \(name)\(hint)")
            }
            chosen = [name]
        } else {
            chosen = recorders.keys.sorted()
        }
        var paths: [String: String] = [:]
        if action == .start {
            for name in chosen {
                guard let recorder = recorders[name], recorder.recorderState == .idle, let spec = targets.first(where: { $0.name == name }) else { continue }
                let path = overwrite ? spec.path : try Self.freeTakePath(spec.path)
                do { try recorder.checkRecording(path: path, settings: spec.settings) } catch {
                    throw ControlError(.session, "recorder \(name): \(error); no recorder was started")
                }
                paths[name] = path
            }
        }
        var changed: [(String, FileRecorder)] = []
        for name in chosen {
            guard let recorder = recorders[name] else { continue }
            do {
                switch action {
                case .start:
                    guard recorder.recorderState == .idle || recorder.recorderState == .prepared else { continue }
                    if let path = paths[name], let spec = targets.first(where: { $0.name == name }) {
                        try recorder.prepareToRecord(path: path, settings: spec.settings)
                        takePaths[name] = path
                    }
                    if let seconds { try recorder.record(forDuration: seconds) } else { try recorder.record() }
                case .resume:
                    guard recorder.recorderState == .paused else { continue }
                    try recorder.record()
                case .pause:
                    guard recorder.isRecording else { continue }
                    recorder.pause()
                case .stop:
                    guard recorder.isRecording || recorder.recorderState == .paused else { continue }
                    _ = try recorder.stop()
                case .meter:
                    break  // the reply closes the window
                }
            } catch { throw ControlError(.session, "recorder \(name): \(error)") }
            changed.append((name, recorder))
        }
        let entries = changed.map { name, recorder -> (text: String, value: ControlValue) in
            let seconds = Double(recorder.framesWritten) / recorder.sampleRate
            let path = takePaths[name] ?? targets.first { $0.name == name }?.path ?? ""
            let state = recorder.recorderState.rawValue
            var members: [(String, ControlValue)] = [("recorder", .string(name)), ("state", .string(state)), ("seconds", .number(seconds))]
            var levels = ""
            if action == .meter {
                let reading = MeterReading(bus: name, closing: recorder)
                levels = " " + reading.levelsText
                members += reading.levelMembers
            }
            return ("\(name) \(state) \(String(format: "%.3f", seconds))\(levels) \(path)", .object(members + [("file", .string(path))]))
        }
        return .ok(text: entries.map(\.text).joined(separator: ", "), value: .array(entries.map(\.value)))
    }

    /// Records `bus` of the running graph into `path` (in the session's folder when
    /// relative): a recorder attached as an observer, starting on the next cycle.
    /// An existing file is kept unless `overwrite`; a file the session plays or records
    /// is refused. `settings` choose the file's sample type, dither, quality, rate and width. Thread: the dispatcher's queue.
    func addTap(_ named: BusName, path: String, overwrite: Bool, settings asked: FileSettings = FileSettings()) throws(ControlError) -> ControlReply {
        let bus = BusName(node: named.node, bus: named.bus ?? 0, midi: named.midi)
        let index = bus.bus ?? 0
        guard !bus.midi else { throw ControlError(.unsupported, "tap: \(bus) is a MIDI bus; taps record audio") }
        guard taps[bus] == nil else { throw ControlError(.badValue, "tap: \(bus) is already tapped into \(taps[bus]!.path); tap remove it first") }
        let file = try resolve(path)
        guard let container = AudioFileContainer(path: file) else {
            throw ControlError(.badValue, "tap: cannot tell the format of \(path) from its name (wav, aiff, caf, flac, ogg)")
        }
        if !overwrite, FileManager.default.fileExists(atPath: file) {
            throw ControlError(.badValue, "tap: \(file) exists; name another file or add overwrite")
        }
        let session = target.session
        if session.players.contains(where: { FileChecks.sameFile($0.path, file) }) || session.recorders.contains(where: { FileChecks.sameFile($0.path, file) })
            || taps.values.contains(where: { FileChecks.sameFile($0.path, file) }) || takePaths.values.contains(where: { FileChecks.sameFile($0, file) }) {
            throw ControlError(.badValue, "tap: \(file) is a file the session plays or records; name another")
        }
        let found = try node(bus.node)
        let channels: Int
        do { channels = try found.unit.format(scope: .output, element: index).channelCount } catch {
            throw ControlError(.graph, "tap: \(bus.node) has no output bus \(index)")
        }
        let recorder = FileRecorder(channelCount: channels, sampleRate: graph.sampleRate)
        var settings = RecordingSettings.session(container, sampleType: asked.sampleType, dither: asked.dither ?? true, quality: asked.quality)
        settings.sampleRate = asked.sampleRate
        settings.channelCount = asked.channels
        if asked.quality != nil, container != .ogg {
            throw ControlError(.badValue, "tap add: quality applies to Ogg Vorbis, not \(container)")
        }
        do { try recorder.prepareToRecord(path: file, settings: settings) } catch {
            throw ControlError(.badValue, "tap: \(error)")
        }
        let token: ObserverToken
        do {
            token = try locked { () throws(ControlError) in
                do throws(GraphError) { return try graph.addObserver(recorder, path: bus.node, bus: index) } catch { throw ControlError(error) }
            }
        } catch {
            _ = try? recorder.stop()
            throw ControlError(error.code, "tap: \(error.message)")
        }
        do { try recorder.record() } catch {
            try? locked { () throws(ControlError) in try? graph.removeObserver(token) }
            _ = try? recorder.stop()
            throw ControlError(.session, "tap: \(error)")
        }
        taps[bus] = (recorder, token, file)
        return .ok(text: "\(bus) recording \(file)", value: .object([("bus", .string(bus.description)), ("file", .string(file))]))
    }

    /// Streams `bus` to `peer`'s connection as raw float frames, from the cycle after the
    /// reply, for `seconds` or until the connection closes. Thread: the dispatcher's queue.
    func streamTap(_ named: BusName, seconds: Double?, to peer: ControlPeer) throws(ControlError) -> ControlReply {
        let bus = BusName(node: named.node, bus: named.bus ?? 0, midi: named.midi)
        let index = bus.bus ?? 0
        guard !bus.midi else { throw ControlError(.unsupported, "tap stream: \(bus) is a MIDI bus; a stream carries audio") }
        guard let deliver = peer.deliverBytes else {
            throw ControlError(.unsupported, "tap stream needs a socket or TCP connection; OSC carries no audio")
        }
        guard !peer.isStreaming else { throw ControlError(.unsupported, "tap stream: this connection already streams") }
        // Each stream has a delivery thread; a session serves a bounded number.
        guard streams.count < Self.streamLimit else {
            throw ControlError(.unsupported, "tap stream: \(Self.streamLimit) streams already run; close one first")
        }
        let found = try node(bus.node)
        let channels: Int
        do { channels = try found.unit.format(scope: .output, element: index).channelCount } catch {
            throw ControlError(.graph, "tap stream: \(bus.node) has no output bus \(index)")
        }
        let rate = graph.sampleRate
        let stream = TapStream(bus: bus, channelCount: channels, frameLimit: seconds.map { Int(($0 * rate).rounded()) }, peer: peer, deliver: deliver)
        try locked { () throws(ControlError) in
            do throws(GraphError) { try stream.attach(to: graph, path: bus.node, bus: index) } catch { throw ControlError(error) }
        }
        peer.state.withLock { $0.stream = stream }
        streams[ObjectIdentifier(peer)] = (peer, stream)
        let text = "\(bus) channels=\(channels) rate=\(Int(rate)) format=f32le" + (seconds.map { " seconds=\($0)" } ?? "")
        return .ok(text: text, value: .object([
            ("bus", .string(bus.description)), ("channels", .number(channels)), ("rate", .number(rate)), ("format", .string("f32le")),
        ]))
    }

    /// Streams one session serves at once.
    static let streamLimit = 16

    /// Ends `peer`'s stream, if it has one. Thread: the dispatcher's queue.
    func endStream(of peer: ControlPeer) {
        guard let (_, stream) = streams.removeValue(forKey: ObjectIdentifier(peer)) else { return }
        target.withGraphLocked { stream.detach(from: graph) }
    }

    /// Finishes a tap's file and takes it out of the graph. Thread: the dispatcher's queue.
    func removeTap(_ named: BusName) throws(ControlError) -> ControlReply {
        let bus = BusName(node: named.node, bus: named.bus ?? 0, midi: named.midi)
        guard let tap = taps.removeValue(forKey: bus) else {
            let tapped = taps.keys.map(\.description).sorted()
            throw ControlError(.unknownNode, "tap: \(bus) is not tapped\(tapped.isEmpty ? "" : " (tapped: \(tapped.joined(separator: ", ")))")")
        }
        let frames: Int
        do { frames = try tap.recorder.stop() } catch { throw ControlError(.session, "tap \(bus): \(error)") }
        try? locked { () throws(ControlError) in try? graph.removeObserver(tap.token) }
        let seconds = Double(frames) / tap.recorder.sampleRate
        return .ok(text: "\(bus) \(String(format: "%.3f", seconds)) \(tap.path)",
                   value: .object([("bus", .string(bus.description)), ("seconds", .number(seconds)), ("file", .string(tap.path))]))
    }

    /// `path` if nothing is there, else the first of `NAME-2.EXT`, `NAME-3.EXT`, ... that
    /// is free, up to `NAME-9999.EXT`.
    static func freeTakePath(_ path: String) throws(ControlError) -> String {
        guard FileManager.default.fileExists(atPath: path) else { return path }
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension, stem = url.deletingPathExtension().path
        for number in 2...9_999 {
            let candidate = stem + "-\(number)" + (ext.isEmpty ? "" : "." + ext)
            if !FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        throw ControlError(.session, "\(path) and its numbered takes up to -9999 all exist; move some away or record start ... overwrite")
    }
}
