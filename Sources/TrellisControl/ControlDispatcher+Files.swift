import Dispatch
import Synchronization
import TrellisMedia
import TrellisSession

/// A command whose file I/O may take long — a load, a save, a player opening or seeking
/// in its file — in two parts: `work`, on the files queue, reads or writes and returns
/// `finish`, which the dispatcher's queue runs to change the session and make the reply.
/// Meanwhile the dispatcher serves every other client.
struct FileJob: Sendable {
    /// What the command was, for the timeout's reply: "load /x/live.yaml".
    var summary: String
    /// Said after "did not finish within N s;": what became of the command.
    var onTimeout: String
    var work: @Sendable (FileJobToken) -> @Sendable () -> ControlReply
}

/// Who gave up first: a job finished, or its timeout passed. The worker asks `mayCommit`
/// before a step it cannot take back (a save's rename); once it has, the timeout waits
/// for it instead of answering. Thread: any.
final class FileJobToken: Sendable {
    private enum State { case running, committing, finished, abandoned }
    private let state = Mutex(State.running)

    /// Worker: whether the timeout answered already (the job may stop).
    var isAbandoned: Bool { state.withLock { $0 == .abandoned } }

    /// Worker: true unless the timeout answered; the job then goes on to the end.
    func mayCommit() -> Bool {
        state.withLock { state in
            guard state == .running else { return false }
            state = .committing
            return true
        }
    }

    /// Dispatcher: true when the job's reply is the one to send.
    func finish() -> Bool {
        state.withLock { state in
            guard state != .abandoned else { return false }
            state = .finished
            return true
        }
    }

    /// Dispatcher: true when the timeout's reply is the one to send.
    func abandon() -> Bool {
        state.withLock { state in
            guard state == .running else { return false }
            state = .abandoned
            return true
        }
    }
}

extension ControlDispatcher {
    /// Runs `request` for `peer` now, or after the file job the peer is waiting on, so a
    /// peer's replies keep the order of its lines. Queue only.
    func submit(for peer: ControlPeer, _ request: @escaping () -> Void) {
        let key = ObjectIdentifier(peer)
        if waiting[key] != nil {
            waiting[key]!.append(request)
        } else {
            request()
        }
    }

    /// Runs `command` and hands its reply to `deliver`: at once, or, for a file job from
    /// a peer, once the job finished or timed out. Queue only.
    func execute(_ command: ControlCommand, peer: ControlPeer, requestID: ControlValue, deliver: @escaping @Sendable (ControlReply) -> Void) {
        let job: FileJob?
        do throws(ControlError) {
            if case .add(let node, let unit, let parameters) = command {
                job = try addJob(node, unit: unit, parameters: parameters, peer: peer, requestID: requestID)
            } else {
                job = try fileJob(for: command)
            }
        } catch {
            deliver(.error(error))
            return
        }
        guard let job else {
            deliver(execute(command, peer: peer, requestID: requestID))
            return
        }
        start(job, for: peer, deliver: deliver)
    }

    /// A file job for no peer (`perform`), in line: nobody else waits on this caller.
    func runInline(_ command: ControlCommand) throws(ControlError) -> ControlReply {
        guard let job = try fileJob(for: command) else { throw ControlError(.internal, "not a file command") }
        return job.work(FileJobToken())()
    }

    private func start(_ job: FileJob, for peer: ControlPeer, deliver: @escaping @Sendable (ControlReply) -> Void) {
        let key = ObjectIdentifier(peer)
        waiting[key] = waiting[key] ?? []
        let token = FileJobToken()
        files.async { [self] in
            let finish = job.work(token)
            queue.async { [self] in
                guard token.finish() else { return }
                deliver(finish())
                resume(key, peer)
            }
        }
        let seconds = fileTimeout
        queue.asyncAfter(deadline: .now() + seconds) { [self] in
            guard token.abandon() else { return }
            let limit = seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
            deliver(.error(ControlError(.timeout, "\(job.summary) did not finish within \(limit) s; \(job.onTimeout)")))
            resume(key, peer)
        }
    }

    /// Runs what waited behind a finished job, until one starts a job of its own. The
    /// peer is passed to keep it alive, and its identifier unique, while it waits.
    private func resume(_ key: ObjectIdentifier, _ peer: ControlPeer) {
        guard var pending = waiting.removeValue(forKey: key) else { return }
        while !pending.isEmpty {
            pending.removeFirst()()
            if waiting[key] != nil {
                waiting[key]! += pending
                return
            }
        }
        withExtendedLifetime(peer) {}
    }

    /// The commands whose file I/O runs off the queue: their lookups and snapshots are
    /// made here, their reading and writing in the job.
    private func fileJob(for command: ControlCommand) throws(ControlError) -> FileJob? {
        switch command {
        case .load(let path): return try loadJob(path)
        case .save(let path): return try saveJob(path)
        case .saveBundle(let folder): return try bundleJob(folder)
        case .transport(let action, let name): return try transportJob(action, name)
        case .playTogether(let names, let at): return try playJob(names, at: at)
        case .learn(let node, let parameter, let minimum, let maximum): return try learnJob(node, parameter, minimum, maximum)
        default: return nil
        }
    }

    /// An `add`: the unit is made (a plugin found and instantiated, a player's file
    /// opened) off the queue, then added as any edit is, undo and watchers included.
    private func addJob(_ name: String, unit key: String, parameters: [ParameterAssignment], peer: ControlPeer, requestID: ControlValue)
        throws(ControlError) -> FileJob
    {
        if (try? graph.node(named: name)) != nil { throw ControlError(.duplicateNode, "a node named \(name) already exists") }
        let registry = target.registry, folder = sessionFolder
        return FileJob(summary: "add \(name) \(key)", onTimeout: "the node is not added") { [self] _ in
            let made = Result { () throws(ControlError) in try makeUnit(name, unit: key, parameters: parameters, registry: registry, folder: folder) }
            return { [self] in
                switch made {
                case .success(let unit):
                    preparedUnit = (name, unit)
                    defer { preparedUnit = nil }
                    return execute(.add(node: name, unit: key, parameters: parameters), peer: peer, requestID: requestID)
                case .failure(let error): return .error(error)
                }
            }
        }
    }

    private func loadJob(_ path: String) throws(ControlError) -> FileJob {
        if let reason = savedState.loadRefusal { throw ControlError(.unsupported, "load: \(reason)") }
        let path = try resolve(path)
        let current = target.session
        var options = SessionLoadOptions(
            sampleRate: current.graph.sampleRate, blockSize: current.graph.maximumFrames, engine: current.graph.engine)
        options.onlySessions = true
        options.memoryBudget = current.graph.memoryBudget
        // Built without publishing: the running program changes only in `load(_:)`.
        options.initialize = false
        let registry = target.registry
        return FileJob(summary: "load \(path)", onTimeout: "the session is unchanged") { [self, options] _ in
            let loaded: Result<LoadedSession, SessionError> = Result { () throws(SessionError) in
                try SessionLoader.load(path: path, registry: registry, options: options)
            }
            return { [self] in
                do throws(ControlError) {
                    switch loaded {
                    case .success(let session): return try load(session, from: path)
                    case .failure(let error): throw ControlError(.session, error.description)
                    }
                } catch { return .error(error) }
            }
        }
    }

    private func saveJob(_ path: String?) throws(ControlError) -> FileJob {
        let (document, destination) = try saveSnapshot(path)
        // What the file will hold: the edits made so far, when it is the session's own.
        let edits = destination == target.session.path ? savedState.edits : nil
        return FileJob(summary: "save \(destination)", onTimeout: "the file is unchanged") { [self] token in
            let saved = Result { () throws(SessionWriteError) in
                try SessionWriter.save(document, to: destination, mayReplace: token.mayCommit)
            }
            return { [self] in
                switch saved {
                case .success:
                    if let edits { noteSaved(edits) }
                    return .ok(text: destination, value: .object([("path", .string(destination))]))
                case .failure(let error): return .error(ControlError(.session, error.description))
                }
            }
        }
    }

    /// `save --bundle FOLDER`: the session as it is now, written into FOLDER with copies
    /// of the files its nodes play or take, named relative to it.
    private func bundleJob(_ folder: String) throws(ControlError) -> FileJob {
        let destination = try resolve(folder)
        let document = target.session.document()
        let directory = sessionFolder ?? "."
        let name = target.session.path.map { String($0.split(separator: "/").last ?? "session.yaml") } ?? "session.yaml"
        return FileJob(summary: "save --bundle \(destination)", onTimeout: "the bundle may be incomplete") { _ in
            let written = Result { () throws(SessionWriteError) in try document.writeBundle(to: destination, directory: directory, name: name) }
            return {
                switch written {
                case .success(let path): return .ok(text: path, value: .object([("path", .string(path))]))
                case .failure(let error): return .error(ControlError(.session, error.description))
                }
            }
        }
    }

    private func transportJob(_ action: TransportAction, _ name: String) throws(ControlError) -> FileJob {
        let player = try player(name, for: action)
        return FileJob(summary: "\(action.verb) \(name)", onTimeout: "the player goes on with it when its file answers") { [self] _ in
            let reply: ControlReply
            do throws(ControlError) { reply = try transport(action, on: player, named: name) } catch { reply = .error(error) }
            return { reply }
        }
    }

    /// Several players, or one at a given time: each is prepared (its file open, its
    /// first audio read ahead), then all are told one start frame, so they start on it
    /// together whatever each took to prepare.
    private func playJob(_ names: [String], at: PlayStart?) throws(ControlError) -> FileJob {
        let players = try names.map { name throws(ControlError) in (name, try player(name, for: .play)) }
        let backend = target.liveBackend
        return FileJob(summary: "play " + names.joined(separator: " "), onTimeout: "the players start when their files answer") { [self] _ in
            let reply: ControlReply
            do throws(ControlError) { reply = try playTogether(players, at: at, backend: backend) } catch { reply = .error(error) }
            return { reply }
        }
    }
}
