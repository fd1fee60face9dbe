import Dispatch
import Foundation
import TrellisControl
import TrellisWeb
import TrellisCore
import TrellisJACK
import TrellisNSM
import TrellisSession

/// Trellis as a client of a session manager (NSM API 1.1.2): it announces itself,
/// registers nothing with JACK until told to open, and then opens, saves and switches
/// sessions as the manager says, each live on JACK under the client id the manager
/// gives. A session is a folder the manager names, holding `session.yaml` and the
/// session's own files (recordings, taps).
///
/// Thread: the manager's messages, opens and saves run on `queue`; `stop` from the
/// thread that waits for SIGTERM.
final class NSMHost: @unchecked Sendable {
    /// The announce's capabilities: switching sessions without a restart, reporting
    /// unsaved changes, and status messages; no GUI.
    static let capabilities = ":switch:dirty:message:"
    static let applicationName = "Trellis"
    static let sessionFileName = "session.yaml"

    struct Options {
        var registry: ComponentRegistry
        var output: StatusOutput
        var server: String?
        var startServer: Bool
        /// What a new session starts as: a session file's text.
        var template: String
        var fileTimeout: Double
        /// How sessions are loaded (their threads).
        var loadOptions: SessionLoadOptions
        /// Where the open session's web desk is served; nil for nowhere.
        var web: WebDesk.Configuration? = nil
    }

    let queue = DispatchQueue(label: "trellis.nsm")
    private let options: Options
    private var client: NSMClient?
    private var running: RunningSession?
    private var privateServer: JACKServer?
    /// Set when the manager refused the announce; `run` then exits with failure.
    private(set) var refused = false

    init(_ options: Options) {
        self.options = options
    }

    /// Listens on a socket of its own and announces from it.
    func announce(to address: NSMAddress, executable: String) throws(CLIError) {
        let client: NSMClient
        do {
            client = try NSMClient(server: address, queue: queue,
                                   handler: { [self] message in handle(message) },
                                   onIgnored: { error in Log.logger.warning("\(error)") })
        } catch { throw CLIError("\(error)") }
        queue.sync { self.client = client }
        client.start()
        guard client.send(.announce(application: Self.applicationName, capabilities: Self.capabilities, executable: executable, pid: getpid())) else {
            throw CLIError("cannot send the announce to the session manager at \(address): \(String(cString: strerror(errno)))")
        }
        Log.logger.info("announced to the session manager at \(address); waiting to be told which session to open")
    }

    /// Leaves JACK, ends every take and stops listening. Returns false when a recorder
    /// failed to write. Unsaved changes are dropped, as the API asks on SIGTERM.
    func stop() -> Bool {
        queue.sync {
            let recorded = running?.stop() ?? true
            running = nil
            client?.stop()
            privateServer?.stop()
            return recorded
        }
    }

    private func handle(_ message: NSMServerMessage) {
        switch message {
        case .welcome(let text, let manager, let capabilities):
            Log.logger.info("under session management by \(manager) (\(capabilities)): \(text)")
        case .refused(let code, let text):
            Log.logger.error("the session manager refused Trellis (error \(code)): \(text)")
            refused = true
            kill(getpid(), SIGTERM)
        case .open(let path, let displayName, let clientID): open(path, displayName: displayName, clientID: clientID)
        case .save: save()
        case .sessionIsLoaded: break
        }
    }

    // MARK: - open

    /// Opens (or creates) the session at `path`, then replaces the running one with it,
    /// as a new JACK client named `clientID`. A session that does not load leaves the
    /// running one as it was.
    private func open(_ path: String, displayName: String, clientID: String) {
        let folder = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let file = folder + "/" + Self.sessionFileName
        let loaded: LoadedSession
        let created: Bool
        do throws(NSMFailure) {
            // It names the JACK client and the control socket.
            guard !clientID.isEmpty, clientID.utf8.count < 64, !clientID.contains("/") else {
                throw NSMFailure(.general, "the client id \"\(clientID)\" cannot name a JACK client: 1 to 63 bytes, no /")
            }
            created = try prepare(folder: folder, file: file)
            do { loaded = try SessionLoader.load(path: file, registry: options.registry, options: options.loadOptions) } catch {
                if created { unlink(file) }
                throw NSMFailure(created ? .createFailed : .badProject, "\(error)")
            }
            if let old = running {
                running = nil
                _ = old.stop()
            }
            try startServerIfAsked()
            do {
                running = try RunningSession(loaded, registry: options.registry, output: options.output, server: options.server,
                                             clientName: clientID, control: controlSettings(clientID))
            } catch { throw NSMFailure(.general, "\(file) loaded, but cannot run on JACK as \(clientID): \(error)") }
        } catch {
            Log.logger.error("cannot open \(file): \(error.message)")
            client?.send(.error(to: "/nsm/client/open", code: error.code, message: error.message))
            return
        }
        for warning in loaded.warnings {
            Log.logger.warning("\(warning)")
            client?.send(.status(priority: 1, message: "\(warning)"))
        }
        if let dispatcher = running?.control?.dispatcher {
            dispatcher.refuseLoad(because: "the session manager chooses which session is open; add a node or edit this one instead")
            let client = self.client
            dispatcher.observeUnsavedChanges { dirty in client?.send(.dirty(dirty)) }
        }
        let verb = created ? "created" : "opened"
        Log.logger.info("\(verb) \(file) as JACK client \(clientID) (\(displayName))")
        client?.send(.reply(to: "/nsm/client/open", message: "\(verb) \(file)"))
        client?.send(.dirty(false))
    }

    /// Makes the session's folder, and its file from the template when there is none
    /// yet. Returns whether the file was created.
    private func prepare(folder: String, file: String) throws(NSMFailure) -> Bool {
        guard Files.makeDirectories(folder, mode: 0o700) else {
            throw NSMFailure(.createFailed, "cannot make the session folder \(folder): \(String(cString: strerror(errno)))")
        }
        if access(file, F_OK) == 0 { return false }
        do { try SessionWriter.save(text: options.template, to: file) } catch {
            throw NSMFailure(.createFailed, "\(error)")
        }
        return true
    }

    private func startServerIfAsked() throws(NSMFailure) {
        guard options.startServer, privateServer == nil else { return }
        do { privateServer = try LiveRunning.ensureServer(named: options.server, startIfMissing: true) } catch {
            throw NSMFailure(.general, error.description)
        }
    }

    /// The control socket is named for the client id, so `trellis ctl CLIENT_ID` reaches
    /// the session the manager shows under that id.
    private func controlSettings(_ clientID: String) -> RunningSession.ControlSettings {
        let socket = ControlEndpoint.defaultSocketPath(name: clientID)
        return RunningSession.ControlSettings(socket: socket, tcpPort: nil, oscPort: nil,
                                              secretPath: ControlSecretFile.path(besideSocket: socket), fileTimeout: options.fileTimeout, web: options.web)
    }

    // MARK: - save

    /// Saves the running session to its file atomically, then replies.
    private func save() {
        guard let dispatcher = running?.control?.dispatcher else {
            client?.send(.error(to: "/nsm/client/save", code: .noSessionOpen, message: "no session is open: the manager has not sent open, or it failed"))
            return
        }
        switch dispatcher.perform(.save(path: nil)) {
        case .ok(let path, _):
            Log.logger.info("saved \(path)")
            client?.send(.reply(to: "/nsm/client/save", message: "saved \(path)"))
        case .error(let error):
            Log.logger.error("cannot save: \(error.message)")
            // The API names ERR_SAVE_FAILED for this reply without giving it a number: ERR_GENERAL is the defined code.
            client?.send(.error(to: "/nsm/client/save", code: .general, message: error.message))
        }
    }
}

/// Why an open failed, with the code the manager is told.
struct NSMFailure: Error {
    var code: NSMErrorCode
    var message: String

    init(_ code: NSMErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
