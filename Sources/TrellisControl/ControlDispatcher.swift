import Foundation
import Synchronization
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisMedia
import TrellisSession

/// Runs commands against a `ControlTarget`, one at a time, on its own queue, whatever
/// transport they came from. Every edit goes through the graph's live-edit path
/// (prepare, one pointer swap on the audio thread, finish), so nothing here touches
/// the audio thread and a command that fails leaves the session as it was.
///
/// Thread: any for the public methods; the work happens on `queue`.
public final class ControlDispatcher: @unchecked Sendable {
    /// The protocol's version, which `hello` reports. It rises when a command changes
    /// in a way an existing script would notice.
    public static let protocolVersion = 1

    public let target: any ControlTarget
    let queue = DispatchQueue(label: "trellis.control.dispatcher")
    /// Meters that `meter` reads, by `node` or `node.bus` (queue only).
    var meters: [BusName: MeterSlot] = [:]
    let peers = Mutex<[ObjectIdentifier: ControlPeer]>([:])
    private var headListener: Int?
    private var noticeListener: NoticeListenerToken?
    /// Times a node was silenced (non-finite output, a failure) since the session started:
    /// `status` says it beside the cycles the whole output was silenced.
    let nodeSilences = Atomic<Int>(0)
    /// The recorders `record` starts and stops, by the session's names (queue only).
    var recorders: [String: FileRecorder] = [:]
    /// The file each recorder's current (or last) take went to, when `record start`
    /// chose a numbered one. Queue only.
    var takePaths: [String: String] = [:]
    /// Connections carrying a `tap stream`, by peer. Queue only.
    var streams: [ObjectIdentifier: (peer: ControlPeer, stream: TapStream)] = [:]
    /// Live taps by bus: the recorder, its place in the graph and its file. Queue only.
    var taps: [BusName: (recorder: FileRecorder, token: ObserverToken, path: String)] = [:]
    var recorderListeners: [(recorder: FileRecorder, token: MediaListenerToken)] = []
    /// Told at once when a recorder cannot write (a full disk); `trellis run` logs it
    /// and exits non-zero at the end (queue only).
    var recorderFailure: (@Sendable (String) -> Void)?
    /// JACK links made and broken by `jack connect|disconnect` since the load, which
    /// `save` writes into the session (queue only).
    var jackEdits: [JackConnectionEdit] = []
    /// Players whose end of file watchers hear about (queue only).
    var playerListeners: [ObjectIdentifier: (player: FilePlayer, token: MediaListenerToken)] = [:]
    /// Edits made through the protocol, for `undo` and `redo` (queue only).
    var history = EditHistory()
    /// MIDI file players and whether each had ended when last looked at, and the timer
    /// that looks (queue only).
    var songs: [ObjectIdentifier: (player: MIDIFilePlayer, name: String, ended: Bool)] = [:]
    var songTimer: DispatchSourceTimer?
    /// Every unit's property listener, for `property` events (queue only).
    var propertyListeners: [ObjectIdentifier: (unit: any AudioUnit, token: ListenerToken)] = [:]
    /// Where file jobs read and write (ControlDispatcher+Files): concurrent, so a file
    /// that never answers holds up only the job that waits on it.
    let files = DispatchQueue(label: "trellis.control.files", attributes: .concurrent)
    /// How long a load, save or player's file may take before its client is answered
    /// TIMEOUT, in seconds.
    let fileTimeout: Double
    /// Peers with a file job under way, and their requests that came after it (queue only).
    var waiting: [ObjectIdentifier: [() -> Void]] = [:]
    /// The unit an `add` made off the queue, while that `add` runs (queue only).
    var preparedUnit: (name: String, unit: any AudioUnit)?
    /// Requests not yet run, by peer, taken in turns.
    private let turns = Mutex(PeerTurns())
    /// Edits, saves and who is told of unsaved changes (ControlDispatcher+SavedState).
    var savedState = SavedState()
    /// The parameter values watchers last heard (ControlDispatcher+Desk).
    var desk = DeskState()
    /// Every unit `units` lists, LV2 plugins included; nil (or a catalog not ready yet)
    /// lists the registry's.
    var unitCatalog: (@Sendable () -> [Component]?)?

    /// Thread: control.
    public init(target: any ControlTarget, fileTimeout: Double = 10) {
        self.target = target
        self.fileTimeout = fileTimeout
        if let backend = target.liveBackend {
            headListener = backend.addLiveListener { [weak self] event in self?.broadcast(ControlEvent.from(event)) }
        }
        // A `load` keeps the engine, so this hears the sessions loaded later too.
        let registry = target.registry
        noticeListener = target.session.graph.engine.addNoticeListener { [weak self] notice in
            if notice.unitID != 0, notice.kind == .nonFiniteOutput || notice.kind == .unitFailed { self?.nodeSilences.add(1, ordering: .relaxed) }
            if let event = ControlEvent.from(notice, registry: registry) { self?.broadcast(event) }
            if let event = Self.latencyEvent(notice) { self?.broadcast(event) }
        }
        queue.sync {
            listenToPlayers()
            listenToProperties()
        }
    }

    deinit {
        if let headListener { target.liveBackend?.removeLiveListener(headListener) }
        if let noticeListener { target.session.graph.engine.removeNoticeListener(noticeListener) }
        songTimer?.cancel()
        desk.parameterTimer?.cancel()
        for (player, token) in playerListeners.values { player.removeObserver(token) }
        for (unit, token) in propertyListeners.values { unit.removeListener(token) }
    }

    /// Hands `record start|stop` the recorders running the session's `recorders:`, by
    /// name. Thread: any but the dispatcher's queue.
    public func setRecorders(_ recorders: [String: FileRecorder], onFailure: (@Sendable (String) -> Void)? = nil) {
        queue.sync {
            recorderFailure = onFailure
            replaceRecorders(with: recorders)
        }
    }

    /// Every recorder now: the session's, or those of the session loaded since, to stop
    /// when the run ends. Thread: any but the dispatcher's queue.
    public var currentRecorders: [FileRecorder] {
        queue.sync { recorders.keys.sorted().compactMap { recorders[$0] } + taps.values.map(\.recorder) }
    }

    /// Watches each recorder for write failures: a warning event for watchers at once,
    /// and the failure handler. Queue only.
    func replaceRecorders(with new: [String: FileRecorder]) {
        for (recorder, token) in recorderListeners { recorder.removeListener(token) }
        recorderListeners = []
        recorders = new
        takePaths = [:]
        let failure = recorderFailure
        for (name, recorder) in new {
            let rate = recorder.sampleRate
            let token = recorder.addListener { [weak self] notification in
                let error: MediaError
                switch notification {
                case .writeFailed(let failed): error = failed
                case .finished(_, let failed?): error = failed
                case .finished(let frames, nil):
                    // A take ended (stopped, or its duration ran out): where and how long.
                    let seconds = Double(frames) / rate
                    self?.queue.async { [weak self] in
                        guard let self else { return }
                        let path = takePaths[name] ?? target.session.recorders.first { $0.name == name }?.path ?? ""
                        broadcast(ControlEvent(
                            kind: .record, text: "\(name) finished \(String(format: "%.3f", seconds)) \(path)",
                            data: .object([("recorder", .string(name)), ("state", .string("finished")), ("seconds", .number(seconds)), ("file", .string(path))])))
                    }
                    return
                default: return
                }
                let text = "recorder \(name): \(error); the take stops growing"
                self?.broadcast(ControlEvent(kind: .warning, text: text, data: .object([("recorder", .string(name)), ("error", .string("\(error)"))])))
                failure?(text)
            }
            recorderListeners.append((recorder, token))
        }
    }

    /// Runs one line from `peer` in its mode (text or JSON) and passes the encoded reply,
    /// without newline, to `reply`. Lines from one peer are answered in order.
    /// Thread: any.
    public func handle(line: String, from peer: ControlPeer, reply: @escaping @Sendable (String) -> Void) {
        takeTurn(peer) { [self] in respond(to: line, from: peer, reply: reply) }
    }

    /// Passes a reply made by a transport (a line too long, not UTF-8) to `reply`,
    /// encoded in the peer's mode and in order with the replies before it. Thread: any.
    public func handle(reply: ControlReply, to peer: ControlPeer, completion: @escaping @Sendable (String) -> Void) {
        takeTurn(peer) { completion(peer.mode == .json ? reply.json(id: .null).json : reply.line) }
    }

    /// Queues `request` behind `peer`'s earlier ones; the queue runs one request of each
    /// waiting peer in turn (`PeerTurns`). Thread: any.
    private func takeTurn(_ peer: ControlPeer, _ request: @escaping @Sendable () -> Void) {
        let run: @Sendable () -> Void = { [self] in submit(for: peer, request) }
        turns.withLock { $0.append(run, for: ObjectIdentifier(peer)) }
        queue.async { [self] in
            // One block per request: whichever peer's turn it is runs now.
            turns.withLock { $0.next() }?()
        }
    }

    /// Runs a parsed command for no particular peer. Thread: any but the dispatcher's queue.
    public func perform(_ command: ControlCommand) -> ControlReply {
        queue.sync { execute(command, peer: nil) }
    }

    /// Runs a command from its words (what OSC carries) and passes its reply to `reply`;
    /// a peer's replies come in the order of its commands. Thread: any.
    public func perform(words: [String], from peer: ControlPeer, reply: @escaping @Sendable (ControlReply) -> Void) {
        takeTurn(peer) { [self] in
            do throws(ControlError) { execute(try CommandParser.parse(words: words), peer: peer, requestID: .null, deliver: reply) } catch {
                reply(.error(error))
            }
        }
    }

    /// Forgets a peer that went away: its watch and meters. Thread: any.
    public func disconnect(_ peer: ControlPeer) {
        queue.async { [self] in
            stopWatching(peer)
            endStream(of: peer)
            // Its job finishes unanswered; what waited behind it is dropped.
            if waiting[ObjectIdentifier(peer)] != nil { waiting[ObjectIdentifier(peer)] = [] }
        }
    }

    /// Stops every watch. Thread: any but the dispatcher's queue.
    public func shutdown() {
        queue.sync {
            desk.parameterTimer?.cancel()
            desk.parameterTimer = nil
            desk.watchesParameters = false
            for peer in peers.withLock({ Array($0.values) }) { stopWatching(peer) }
            for (peer, _) in streams.values { endStream(of: peer) }
            for slot in meters.values { slot.remove() }
            meters = [:]
            songTimer?.cancel()
            songTimer = nil
        }
    }

    // MARK: - Queue side

    func respond(to line: String, from peer: ControlPeer, reply: @escaping @Sendable (String) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard peer.mode == .json else {
            do throws(ControlError) {
                execute(try CommandParser.parse(line: line), peer: peer, requestID: .null) { reply($0.line) }
            } catch { reply(ControlReply.error(error).line) }
            return
        }
        let request: JSONRequest
        do throws(JSONRequest.Failure) { request = try JSONRequest(line: line) } catch {
            reply(ControlReply.error(error.error).json(id: error.id).json)
            return
        }
        let id = request.id
        do throws(ControlError) {
            execute(try request.command(), peer: peer, requestID: id) { reply($0.json(id: id).json) }
        } catch { reply(ControlReply.error(error).json(id: id).json) }
    }

    func execute(_ command: ControlCommand, peer: ControlPeer?, requestID: ControlValue = .null) -> ControlReply {
        let reply = recordingUndo(command, peer: peer, requestID: requestID)
        noteEdit(command, reply)
        reportEdit(command, reply, peer: peer)
        return reply
    }

    /// What `units` lists: built-in units and every LV2 plugin, as the program finds
    /// them (`trellis run` scans once, when first asked). Thread: any but the queue.
    public func setUnitCatalog(_ catalog: @escaping @Sendable () -> [Component]?) {
        queue.sync { unitCatalog = catalog }
    }

    private func recordingUndo(_ command: ControlCommand, peer: ControlPeer?, requestID: ControlValue) -> ControlReply {
        guard let (label, key) = Self.undoLabel(command) else { return run(command, peer: peer, requestID: requestID) }
        // A fader's next set joins the edit under way: its snapshot is already taken.
        if let key, history.joins(key) {
            let reply = run(command, peer: peer, requestID: requestID)
            if case .ok = reply { history.record(label, before: nil, key: key) }
            return reply
        }
        let before = EditSnapshot(graph)
        let reply = run(command, peer: peer, requestID: requestID)
        if case .ok = reply { history.record(label, before: before, key: key) }
        return reply
    }

    private func run(_ command: ControlCommand, peer: ControlPeer?, requestID: ControlValue) -> ControlReply {
        do throws(ControlError) {
            switch command {
            case .hello:
                return .ok(text: "trellis-control \(Self.protocolVersion)", value: .object([("protocol", .string("trellis-control")), ("version", .number(Self.protocolVersion))]))
            case .help(let verb): return try help(verb)
            case .list: return list()
            case .describe: return describe()
            case .units(let text): return units(matching: text)
            case .takes: return takes()
            case .add(let node, let unit, let parameters):
                defer { listenToProperties() }
                return try locked { () throws(ControlError) in try add(node, unit: unit, parameters: parameters) }
            case .remove(let node):
                defer { listenToProperties() }
                return try locked { () throws(ControlError) in try remove(node) }
            case .connect(let from, let to, let convert): return try locked { () throws(ControlError) in try connect(from, to, convert: convert) }
            case .disconnect(let from, let to): return try locked { () throws(ControlError) in try disconnect(from, to) }
            case .set(let node, let parameter, let value, let ramp): return try set(node, parameter, value, rampMilliseconds: ramp)
            case .get(let node, let parameter): return try get(node, parameter)
            case .params(let node): return try params(node)
            case .bypass(let node, let on): return try bypass(node, on)
            case .restart(let node): return try locked { () throws(ControlError) in try restart(node) }
            case .preset(let node, let name): return try preset(node, name)
            case .file(let node, let name, let path): return try giveFile(node, name, path)
            case .presetSave(let node, let name): return try savePreset(node, name)
            case .properties(let node): return try properties(node)
            case .propertyGet(let node, let name, let place): return try propertyGet(node, name, place)
            case .propertySet(let node, let name, let value, let place): return try propertySet(node, name, value, place)
            case .meter(let bus, nil): return try meter(bus)
            case .meter(let bus, let loudness?): return try self.loudness(bus, loudness)
            case .record(let action, let recorder, let seconds, let overwrite):
                return try record(action, recorder: recorder, seconds: seconds, overwrite: overwrite)
            case .load, .save, .saveBundle, .transport, .playTogether: return try runInline(command)
            case .position(let node): return try position(node)
            case .tapAdd(let bus, let path, let overwrite, let settings): return try addTap(bus, path: path, overwrite: overwrite, settings: settings)
            case .tapRemove(let bus): return try removeTap(bus)
            case .tapStream(let bus, let seconds):
                guard let peer else { throw ControlError(.unsupported, "tap stream needs a connection to stream to") }
                return try streamTap(bus, seconds: seconds, to: peer)
            case .jackConnect(let port, let peer): return try jack(connect: true, port: port, peer: peer)
            case .jackDisconnect(let port, let peer): return try jack(connect: false, port: port, peer: peer)
            case .status(let peek): return status(peek: peek)
            case .program:
                // One reply line: the listing's lines joined by "; " (JSON: an array of them).
                let lines = graph.programListing.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                return .ok(text: lines.joined(separator: "; "), value: .object([("lines", .array(lines.map { .string($0) }))]))
            case .watch(let request):
                guard let peer else { throw ControlError(.unsupported, "watch needs a connection to stream to") }
                return try watch(request, peer: peer, id: requestID)
            case .unwatch:
                if let peer { stopWatching(peer) }
                return .done
            case .mode(let mode):
                guard let peer else { throw ControlError(.unsupported, "mode applies to a connection") }
                peer.state.withLock { $0.mode = mode }
                return .ok(text: mode.rawValue, value: .string(mode.rawValue))
            case .batch(let commands):
                defer { listenToProperties() }
                return try locked { () throws(ControlError) in try batch(commands) }
            case .bye:
                peer?.state.withLock { $0.closing = true }
                return .ok("bye")
            case .clock(let request): return try clock(request)
            case .automate(let node, let parameter, let points, let stepped): return try automate(node, parameter, points, stepped: stepped)
            case .automateClear(let node, let parameter): return try clearAutomation(node, parameter)
            case .learn: return try runInline(command)
            case .unlearn(let node, let parameter): return try unlearn(node, parameter)
            case .mappings: return mappings()
            case .undo: return try undo()
            case .redo: return try redo()
            }
        } catch {
            return .error(error)
        }
    }

    var graph: Graph { target.session.graph }

    /// Runs a graph edit while no backend re-prepares the graph.
    func locked<T>(_ body: () throws(ControlError) -> T) throws(ControlError) -> T {
        var result: Result<T, ControlError>?
        target.withGraphLocked { result = Result { () throws(ControlError) in try body() } }
        return try result!.get()
    }

    /// The node `name` names: one of the session's, or one inside a subgraph node
    /// (`strip/trim`).
    func node(_ name: String) throws(ControlError) -> Node {
        do { return try graph.node(atPath: name) } catch { throw ControlError(error) }
    }

    /// A node of the session's own graph, for the edits that rewire it; a node inside a
    /// subgraph is refused with the reason.
    func topNode(_ name: String) throws(ControlError) -> Node {
        if let slash = name.firstIndex(of: "/"), (try? graph.node(atPath: name)) != nil {
            throw ControlError(.unsupported, "\(name) is inside subgraph node \(name[..<slash]): live edits add, remove and connect the session's own nodes; change a subgraph in its definition")
        }
        do { return try graph.node(named: name) } catch { throw ControlError(error) }
    }

    private func help(_ verb: String?) throws(ControlError) -> ControlReply {
        guard let verb else {
            let verbs = CommandHelp.entries.map(\.verb)
            return .ok(text: verbs.joined(separator: " "), value: .array(verbs.map { .string($0) }))
        }
        guard let entry = CommandHelp.entry(verb) else {
            throw ControlError(.unknownCommand, "no command \(CommandTokenizer.quote(verb)); `help` lists them")
        }
        return .ok(text: "\(entry.usage) -- \(entry.summary)", value: .object([("usage", .string(entry.usage)), ("summary", .string(entry.summary))]))
    }
}
