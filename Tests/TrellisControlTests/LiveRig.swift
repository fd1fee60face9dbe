import Foundation
import Glibc
import Testing
import TrellisTestSupport
import TrellisControl

/// A private jackd (dummy backend, 48 kHz, 256-frame periods) and `trellis run` playing
/// a session on it, each in its own process, controlled through the session's socket.
///
/// jackd runs real-time when the machine allows it (as it does on a musician's), so
/// that its cycles are scheduled ahead of ordinary threads as they would be there; the
/// control plane must still never make the audio wait. Running the session in its own
/// process keeps libjack's per-process state away from the other JACK tests.
final class LiveRig: @unchecked Sendable {
    let folder: String
    let serverName: String
    let socketPath: String
    private let jackd: Process
    private let session: Process

    /// `prepare` puts what the session needs (its files) in its folder before it starts.
    /// `homeInFolder` makes the folder the session's HOME, where user presets go.
    init(session text: String = toneSession, arguments: [String] = [], environment: [String: String] = [:],
         homeInFolder: Bool = false, prepare: ((String) throws -> Void)? = nil) throws {
        folder = try temporaryFolder()
        var environment = environment
        if homeInFolder { environment.merge(["HOME": folder, "XDG_CONFIG_HOME": folder + "/.config"]) { $1 } }
        try prepare?(folder)
        serverName = "trellis-ctl-\(UUID().uuidString.prefix(8))"
        socketPath = folder + "/control.sock"
        let path = try write(text, to: "session.yaml", in: folder)
        jackd = try Self.startJACK(serverName, log: folder + "/jackd.log")
        session = Process()
        session.executableURL = trellisExecutable
        session.arguments = ["run", path, "--server", serverName, "--client-name", "trellis", "--control-socket", socketPath] + arguments
        session.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        // A crash's backtrace goes to stdout by default; the log should have it.
        session.environment = ProcessInfo.processInfo.environment.merging(
            ["SWIFT_BACKTRACE": "enable=yes,output-to=stderr"].merging(environment) { $1 }) { $1 }
        session.standardError = try Self.logFile(folder + "/run.log")
        try session.run()
        let deadline = Date().addingTimeInterval(10)
        while (try? ControlClient(endpoint: .unix(path: socketPath))) == nil {
            guard session.isRunning, Date() < deadline else {
                let ended = session.isRunning ? "still starting after 10 s" : Self.describeExit(session)
                let log = (try? String(contentsOfFile: folder + "/run.log", encoding: .utf8)) ?? ""
                let jackLog = (try? String(contentsOfFile: folder + "/jackd.log", encoding: .utf8)) ?? ""
                stop()
                throw TestFailure("trellis run did not come up (\(ended)): \(log)\njackd: \(jackLog)")
            }
            usleep(20_000)
        }
    }

    static func describeExit(_ process: Process) -> String {
        switch process.terminationReason {
        case .exit: "exited with status \(process.terminationStatus)"
        case .uncaughtSignal: "killed by signal \(process.terminationStatus)"
        @unknown default: "ended"
        }
    }

    /// jackd real-time if it can be, else not; returns once it accepts clients.
    static func startJACK(_ name: String, log: String) throws -> Process {
        let dummy = ["-d", "dummy", "-r", "48000", "-p", "256"]
        for realtime in [["-R", "-P", "70"], ["--no-realtime"]] {
            let jackd = Process()
            jackd.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            jackd.arguments = ["jackd"] + realtime + ["-n", name] + dummy
            jackd.standardOutput = try logFile(log)
            jackd.standardError = jackd.standardOutput
            try jackd.run()
            let wait = Process()
            wait.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            wait.arguments = ["jack_wait", "-w", "-s", name, "-t", "5"]
            wait.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            try wait.run()
            wait.waitUntilExit()
            if jackd.isRunning && wait.terminationStatus == 0 { return jackd }
            if jackd.isRunning { jackd.terminate() }
            jackd.waitUntilExit()
        }
        throw TestFailure("jackd \(name) did not start")
    }

    static func logFile(_ path: String) throws -> FileHandle {
        FileManager.default.createFile(atPath: path, contents: nil)
        return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    func client() throws -> ControlClient { try ControlClient(endpoint: .unix(path: socketPath)) }

    /// jackd's process, for a test that stops and continues the server.
    var jackdProcessIdentifier: Int32 { jackd.processIdentifier }

    /// What `trellis run` has logged, once it holds `text` or `seconds` have passed.
    func log(containing text: String, within seconds: Double = 3) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var log = ""
        while Date() < deadline {
            log = (try? String(contentsOfFile: folder + "/run.log", encoding: .utf8)) ?? ""
            if log.contains(text) { break }
            usleep(20_000)
        }
        return log
    }

    func ask(_ line: String) throws -> String { try client().request(line) }

    /// Sends `signal` to `trellis run` and waits for it to end (kill -9 is SIGKILL).
    func kill(_ signal: Int32) {
        Glibc.kill(session.processIdentifier, signal)
        session.waitUntilExit()
    }

    /// `trellis run` ends on SIGTERM as on Ctrl-C, then jackd does.
    func stop() {
        end(session)
        end(jackd)
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// Ends a process a test started: SIGTERM, then SIGKILL if it still runs after `grace`
/// seconds, so a rig's cleanup cannot hang.
func end(_ process: Process, grace: Double = 5) {
    guard process.isRunning else { return }
    process.terminate()
    let deadline = Date().addingTimeInterval(grace)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What `port` is connected to in the lines `jack_lsp -c` prints (each port, then its
/// peers indented); nil when the port is not listed.
func jackPeers(of port: String, inListing lines: [String]) -> [String]? {
    guard let index = lines.firstIndex(of: port) else { return nil }
    return lines[(index + 1)...].prefix { $0.hasPrefix(" ") || $0.hasPrefix("\t") }.map { $0.trimmingCharacters(in: .whitespaces) }
}

/// The `trellis` executable, built beside the test bundle.
var trellisExecutable: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("trellis")
}

/// The live tests run one at a time: each has its own jackd and session, but the
/// machine has two cores, and the xrun test must not count another test's load.
@Suite("Control of a live session on a real jackd", .serialized, .liveAudio)
struct LiveControlTests {}
