import ArgumentParser
import Dispatch
import Foundation
import TrellisChain
import TrellisControl
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisJACK
import TrellisLive
import TrellisMedia
import TrellisSession
import TrellisWeb
import Synchronization

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a session live on JACK until interrupted (SIGINT or SIGTERM).")

    @Argument(help: "The session file, or a session's name: NAME.yaml in ~/.config/trellis/sessions/ or /etc/trellis/sessions/.")
    var session: String

    @OptionGroup var live: LiveSessionOptions

    @OptionGroup var parallel: ThreadsOption

    @Option(help: "The JACK client name (default: the session's).")
    var clientName: String?

    @Option(help: "When idle CPUs are kept responsive on a real-time server: auto (around each cycle while the program runs isolated plugins), hold or off (default: the session's jack: cpu-latency:, else auto).")
    var cpuLatency: CPULatencyPolicy?

    @Flag(help: "Write status and notification events as JSON lines instead of a status line.")
    var json = false

    @Option(help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    @Option(help: "The control socket (default: $XDG_RUNTIME_DIR/trellis/NAME.sock, NAME the session file's name).")
    var controlSocket: String?

    @Flag(help: "Serve no control socket.")
    var noControl = false

    @Option(help: "Also serve the control protocol on TCP 127.0.0.1:PORT.")
    var controlTcp: Int?

    @Option(help: "Serve the control vocabulary as OSC on UDP 127.0.0.1:PORT.")
    var oscPort: Int?

    @Option(help: "Serve the web desk on [ADDRESS:]PORT (default address 127.0.0.1; 0.0.0.0 serves the LAN); the URL to open is logged.")
    var web: String?

    @Flag(help: "While no JACK server is up, wait for one instead of failing (what a service runs with).")
    var waitForServer = false

    @Flag(help: "Never write over a take: one already at a recorder's file is repaired if a crash cut it short, and kept as NAME-N.EXT beside it.")
    var keepTakes = false

    func run() throws {
        // A service stopped while it waits for JACK stops cleanly; otherwise Ctrl-C ends
        // a long load at once, and is caught from when the session plays.
        let early = waitForServer ? Interruption() : nil
        let notifier = ServiceNotifier()
        // Made before any plugin loads: with --json, what plugins print stays out of it.
        let output = StatusOutput(json: json)
        let registry = try Units.shared()
        let path = try SessionName.resolve(session)
        let loaded: LoadedSession
        do { loaded = try SessionLoader.load(path: path, registry: registry, options: parallel.loadOptions) } catch {
            throw CLIError("\(error)")
        }
        for warning in loaded.warnings { Log.logger.warning("\(warning)") }
        if keepTakes {
            for kept in try KeptTakes.moveAside(loaded.recorders) {
                let repair = kept.recoveredFrames.map { ", repaired first (\($0) frames the header had not counted)" } ?? ""
                Log.logger.notice("kept the take \(kept.from) as \(kept.to)\(repair)")
            }
        }

        let privateServer = try LiveRunning.ensureServer(
            named: live.server, startIfMissing: live.startServer, waitingFor: early
        ) { waiting in
            Log.logger.notice("\(waiting)")
            notifier.status(waiting)
        }
        defer { privateServer?.stop() }
        let running = try RunningSession(loaded, registry: registry, output: output, server: live.server, clientName: clientName, cpuLatency: cpuLatency, control: try controlSettings(path: path))
        let first = running.live.status()
        notifier.ready(status: "running on JACK \(first.serverName) as \(first.clientName), \(Int(first.sampleRate)) Hz / \(first.bufferFrames)")
        var heartbeat = ServiceHeartbeat(notifier: notifier)
        LiveRunning.waitForInterrupt(early ?? Interruption(), duration: duration) {
            let schedule = running.live.driver.withGraph { $0.scheduleReport }
            let status = running.live.status()
            output.status(status, transport: loaded.graph.engine.transportTime, schedule: schedule)
            heartbeat.tick(status)
        }
        notifier.stopping()
        let recorded = running.stop()
        output.finish()
        if !recorded { throw ExitCode.failure }
    }

    /// Where the options ask the control protocol to be served; nil for nowhere.
    func controlSettings(path: String) throws(CLIError) -> RunningSession.ControlSettings? {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let socket = noControl ? nil : controlSocket ?? ControlEndpoint.defaultSocketPath(name: name)
        guard socket != nil || controlTcp != nil || oscPort != nil || web != nil else { return nil }
        let secretPath = ControlSecretFile.path(besideSocket: controlSocket ?? ControlEndpoint.defaultSocketPath(name: name))
        return RunningSession.ControlSettings(socket: socket, tcpPort: controlTcp, oscPort: oscPort, secretPath: secretPath, fileTimeout: live.fileTimeout,
                                              web: try web.map { text throws(CLIError) in
                                                  do { return try WebDesk.Configuration(parsing: text) } catch { throw CLIError("\(error)") }
                                              })
    }
}

/// The live status line on a terminal, or JSON lines for programs.
final class StatusOutput: @unchecked Sendable {
    let json: Bool
    let isTerminal = isatty(STDOUT_FILENO) != 0
    private let lock = NSLock()
    private var warnings = 0

    /// What the status lines or JSON events go to: standard output, kept from plugins
    /// when it carries JSON.
    private let output: FileHandle

    init(json: Bool) {
        self.json = json
        output = json ? OwnStandardOutput.divertPlugins() : FileHandle.standardOutput
    }

    /// The status line, with where the transport is (`play 3|2|0 120 bpm`).
    func status(_ status: JACKStatus, transport: TimeContext, schedule: ScheduleReport? = nil) {
        lock.lock()
        defer { lock.unlock() }
        let bars = BarBeatTick(beats: transport.beat, beatsPerBar: transport.beatsPerBar)
        let tempo = transport.tempo == transport.tempo.rounded() ? "\(Int(transport.tempo))" : String(format: "%.2f", transport.tempo)
        if json {
            let peaks = status.outputPeaksDecibels.map { String(format: "%.1f", $0) }.joined(separator: ",")
            write("{\"type\":\"status\",\"dspLoad\":\(String(format: "%.4f", status.dspLoad)),\"xruns\":\(status.xrunCount),\"warnings\":\(warnings),\"sampleRate\":\(Int(status.sampleRate)),\"frames\":\(status.bufferFrames),\"transport\":\"\(transport.isRolling ? "rolling" : "stopped")\",\"bars\":\"\(bars)\",\"tempo\":\(tempo),\"peaks\":[\(peaks)],\"cpuLatency\":\"\(status.cpuLatency.word)\"\(schedule.map { ",\"schedule\":\"\($0.mode)\",\"scheduleDetail\":\"\($0)\"" } ?? "")}\n")
            return
        }
        let peaks = status.outputPeaksDecibels.map { String(format: "%6.1f", $0) }.joined(separator: " ")
        let clock = "\(transport.isRolling ? "play" : "stop") \(bars) \(tempo) bpm"
        let line = String(format: "DSP %5.1f%%  xruns %d  warnings %d  %d Hz / %d  ", status.dspLoad * 100, status.xrunCount, warnings, Int(status.sampleRate), status.bufferFrames)
            + clock + "  peaks dBFS: " + peaks
        write(isTerminal ? "\r\u{1B}[K" + line : line + "\n")
    }

    func event(_ event: JACKEvent) {
        lock.lock()
        defer { lock.unlock() }
        let isWarning = if case .midiEventsDropped = event { true } else { false }
        if isWarning { warnings += 1 }
        if json {
            let text = "\(event)".replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            write("{\"type\":\"event\",\"event\":\"\(text)\"}\n")
        } else if isWarning {
            if isTerminal { write("\r\u{1B}[K") }
            Log.logger.warning("\(event)")
        } else {
            Log.logger.notice("\(event)")
        }
    }

    /// A notice from the engine's finish step, named by node. As JSON: every warning,
    /// log line and MIDI message a plugin sent. On a terminal: warnings (counted on the
    /// status line) and log lines; MIDI is left to `ctl watch`. Thread: any (the
    /// engine's finish thread).
    func notice(_ notice: EngineNotice, registry: ComponentRegistry) {
        guard notice.isWarning || notice.kind == .log || notice.kind == .latencyChanged || (json && notice.kind == .midiOutput) else { return }
        lock.lock()
        defer { lock.unlock() }
        if notice.isWarning { warnings += 1 }
        if json {
            guard case .object(let fields) = notice.controlValue(registry: registry) else { return }
            write(ControlValue.object([("type", .string("notice"))] + fields).json + "\n")
        } else {
            if isTerminal { write("\r\u{1B}[K") }
            let text = notice.text(registry: registry)
            if notice.isWarning { Log.logger.warning("\(text)") } else { Log.logger.notice("\(text)") }
        }
    }

    func finish() {
        if isTerminal && !json { write("\n") }
    }

    private func write(_ text: String) {
        output.write(Data(text.utf8))
    }
}
