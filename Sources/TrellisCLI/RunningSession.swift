import Foundation
import Synchronization
import TrellisControl
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisJACK
import TrellisLive
import TrellisMedia
import TrellisSession
import TrellisWeb

/// A session running live on JACK with its recorders and control plane: what `run`
/// starts once, and `nsm` starts for each session its manager opens.
/// Thread: control.
final class RunningSession {
    /// Where the control protocol is served.
    struct ControlSettings {
        var socket: String?
        var tcpPort: Int?
        var oscPort: Int?
        var secretPath: String
        var fileTimeout: Double
        /// Where the web desk is served; nil for nowhere.
        var web: WebDesk.Configuration? = nil
    }

    let loaded: LoadedSession
    let live: LiveSession
    let control: ControlServer?
    private(set) var web: WebDesk?
    /// Set when a recorder could not write (a full disk): the take stopped growing, and
    /// the run must not end as if it were good.
    private let recordingFailed = FailureFlag()
    private let recorders: [FileRecorder]
    private let notices: NoticeListenerToken
    private let playerTokens: [(FilePlayer, MediaListenerToken)]
    private var recorderTokens: [(FileRecorder, MediaListenerToken)] = []

    /// Joins the JACK server as `clientName` (default: the session's), starts the
    /// transport and recorders, and serves control as `settings` say (nil: none).
    init(
        _ loaded: LoadedSession, registry: ComponentRegistry, output: StatusOutput,
        server: String?, clientName: String?, cpuLatency: CPULatencyPolicy? = nil, control settings: ControlSettings?
    ) throws(CLIError) {
        self.loaded = loaded
        // Listening before the first cycle: what the first cycles report is not lost.
        notices = loaded.graph.engine.addNoticeListener { notice in output.notice(notice, registry: registry) }
        playerTokens = Self.logFileTrouble(of: loaded.graph)
        let live: LiveSession
        do {
            live = try LiveSession(session: loaded, serverName: server, clientName: clientName, cpuLatency: cpuLatency)
            live.addListener { event in output.event(event) }
            try live.start()
        } catch {
            Self.release(loaded, notices, playerTokens)
            throw CLIError("\(error)")
        }
        self.live = live
        if let warning = loaded.rateWarning(runningAt: live.status().sampleRate) { Log.logger.warning("\(warning)") }
        let recorders: [FileRecorder]
        do { recorders = try loaded.startTransport(atSampleTime: nil, readAhead: settings?.fileTimeout ?? LiveSessionOptions.defaultFileTimeout) } catch {
            live.stop()
            Self.release(loaded, notices, playerTokens)
            throw CLIError("\(error)")
        }
        self.recorders = recorders
        let failed = recordingFailed
        let onFailure: @Sendable (String) -> Void = { message in
            Log.logger.error("\(message)")
            failed.raise()
        }
        do { control = try settings.map { settings throws(CLIError) in try Self.serve(live, loaded, recorders, settings, onFailure) } } catch {
            live.stop()
            for recorder in recorders { _ = try? recorder.stop() }
            Self.release(loaded, notices, playerTokens)
            throw error
        }
        if let settings, let web = settings.web, let control {
            do { self.web = try Self.serveWeb(web, control) } catch {
                control.stop()
                live.stop()
                for recorder in recorders { _ = try? recorder.stop() }
                Self.release(loaded, notices, playerTokens)
                throw error
            }
        }
        if control == nil {
            for recorder in recorders {
                recorderTokens.append((recorder, recorder.addListener { note in
                    if case .writeFailed(let error) = note { onFailure("recorder: \(error); the take stops growing") }
                }))
            }
        }
    }

    /// Leaves JACK, ends every take (its file complete) and stops serving control.
    /// Returns false when a recorder failed to write at any time.
    func stop() -> Bool {
        live.stop()
        for recorder in control?.dispatcher.currentRecorders ?? recorders {
            do { _ = try recorder.stop() } catch {
                Log.logger.error("\(error)")
                recordingFailed.raise()
            }
        }
        for (recorder, token) in recorderTokens { recorder.removeListener(token) }
        recorderTokens = []
        web?.stop()
        control?.stop()
        Self.release(loaded, notices, playerTokens)
        return !recordingFailed.isRaised
    }

    private static func release(_ loaded: LoadedSession, _ notices: NoticeListenerToken, _ players: [(FilePlayer, MediaListenerToken)]) {
        loaded.graph.engine.removeNoticeListener(notices)
        for (player, token) in players { player.removeObserver(token) }
    }

    /// Serves the web desk over the control server's dispatcher and logs the URL to open.
    private static func serveWeb(_ configuration: WebDesk.Configuration, _ control: ControlServer) throws(CLIError) -> WebDesk {
        guard let secret = control.secret else { throw CLIError("the web desk needs the session's secret, and none was made") }
        control.dispatcher.setUnitCatalog(UnitCatalog.shared.ready)
        let desk = WebDesk(configuration: configuration, dispatcher: control.dispatcher, secret: secret)
        do { try desk.start() } catch { throw CLIError("\(error)") }
        do { try control.publishWebURL(desk.address) } catch { Log.logger.warning("\(error); trellis ctl NAME web will not find the desk") }
        if configuration.servesNetwork {
            Log.logger.warning("web desk: served on \(configuration.host):\(desk.port), beyond this machine; whoever has the URL with its token controls the session")
        }
        Log.logger.notice("web desk: \(desk.loginURL)")
        // The unit list the desk's search shows: scanned now, off the session's threads.
        DispatchQueue.global(qos: .utility).async { UnitCatalog.shared.scan() }
        return desk
    }

    private static func serve(
        _ live: LiveSession, _ loaded: LoadedSession, _ recorders: [FileRecorder], _ settings: ControlSettings,
        _ onFailure: @escaping @Sendable (String) -> Void
    ) throws(CLIError) -> ControlServer {
        let server: ControlServer
        do {
            server = try ControlServer(target: live, socketPath: settings.socket, tcpPort: settings.tcpPort, oscPort: settings.oscPort,
                                       secretPath: settings.secretPath, fileTimeout: settings.fileTimeout, web: settings.web != nil)
        } catch { throw CLIError("\(error)") }
        server.dispatcher.setRecorders(Dictionary(uniqueKeysWithValues: zip(loaded.recorders.map(\.name), recorders)), onFailure: onFailure)
        server.start()
        for endpoint in server.endpoints { Log.logger.info("control: \(endpoint)") }
        if let osc = server.osc { Log.logger.info("OSC: 127.0.0.1:\(osc.port)") }
        if let path = server.secretPath { Log.logger.info("control secret (for TCP and OSC clients): \(path)") }
        return server
    }

    /// Logs what the session's players could not read: damaged frames played as silence,
    /// a read that failed. (Watchers hear the same as warning events.)
    static func logFileTrouble(of graph: Graph) -> [(FilePlayer, MediaListenerToken)] {
        graph.nodes.compactMap { node in
            guard let player = node.unit as? FilePlayer else { return nil }
            let name = node.name
            return (player, player.addListener { note in
                guard let event = ControlEvent.from(note, node: name), event.kind == .warning else { return }
                Log.logger.warning("\(event.text)")
            })
        }
    }
}

/// A flag raised from any thread (something failed, a signal came) and read by another.
final class FailureFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .relaxed) }

    var isRaised: Bool { raised.load(ordering: .relaxed) }
}
