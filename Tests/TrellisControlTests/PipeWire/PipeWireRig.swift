import Foundation
import Glibc
import TrellisControl

/// A private, headless PipeWire (PipeWire/headless.conf: a dummy driver, no sound card,
/// no D-Bus, no session manager) in a runtime folder of its own, and Trellis sessions
/// on its JACK library through `pw-jack`, as users run JACK programs on PipeWire.
final class PipeWireRig {
    let folder: String
    private let runtime: String
    private var daemon: Process?
    private var sessions: [Process] = []

    static let configuration = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("headless.conf").path

    init() throws {
        folder = try temporaryFolder()
        runtime = folder + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try startDaemon()
    }

    /// What every process here sees: the private runtime folder and its PipeWire socket.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging([
            "XDG_RUNTIME_DIR": runtime, "PIPEWIRE_RUNTIME_DIR": runtime, "PIPEWIRE_REMOTE": "pipewire-0",
            "SWIFT_BACKTRACE": "enable=yes,output-to=stderr",
        ]) { $1 }
        environment["PIPEWIRE_CONFIG_DIR"] = nil
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["JACK_DEFAULT_SERVER"] = nil
        return environment
    }

    /// Starts the daemon and returns once it answers (`pw-cli info 0`).
    func startDaemon() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pipewire", "-c", Self.configuration]
        process.environment = environment
        process.standardOutput = try LiveRig.logFile(folder + "/pipewire.log")
        process.standardError = process.standardOutput
        try process.run()
        daemon = process
        let deadline = Date().addingTimeInterval(10)
        while (try? tool(["timeout", "-k", "1", "2", "pw-cli", "info", "0"]))?.status != 0 {
            guard process.isRunning, Date() < deadline else {
                throw TestFailure("PipeWire did not start: \(log("pipewire.log"))")
            }
            usleep(50_000)
        }
    }

    /// SIGTERM to the daemon, as when the user's PipeWire restarts.
    func stopDaemon() {
        guard let daemon, daemon.isRunning else { return }
        daemon.terminate()
        daemon.waitUntilExit()
        self.daemon = nil
    }

    /// Runs `text` with `pw-jack trellis run`; returns its control socket once it answers.
    @discardableResult
    func run(_ text: String, name: String) throws -> String {
        let path = try write(text, to: name + ".yaml", in: folder)
        let socket = folder + "/\(name).sock"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pw-jack", trellisExecutable.path, "run", path, "--control-socket", socket]
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = try LiveRig.logFile(folder + "/\(name).log")
        try process.run()
        sessions.append(process)
        let deadline = Date().addingTimeInterval(15)
        while (try? ControlClient(endpoint: .unix(path: socket))) == nil {
            guard process.isRunning, Date() < deadline else {
                throw TestFailure("pw-jack trellis run \(name) did not come up (\(LiveRig.describeExit(process))): \(log(name + ".log"))")
            }
            usleep(50_000)
        }
        return socket
    }

    func ask(_ socket: String, _ line: String) throws -> String {
        try ControlClient(endpoint: .unix(path: socket)).request(line)
    }

    /// A program run here (`pw-jack jack_lsp`, `pw-metadata`), with its status and output.
    func tool(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// What `port` is connected to, from `pw-jack jack_lsp -c`; nil when it is not listed.
    func peers(of port: String) -> [String]? {
        guard let lines = try? tool(["pw-jack", "jack_lsp", "-c"]).output.split(separator: "\n").map(String.init) else { return nil }
        return jackPeers(of: port, inListing: lines)
    }

    func log(_ name: String) -> String { (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? "" }

    /// Waits for `condition`, failing with `what` and the sessions' logs.
    func waitUntil(_ what: String, within seconds: Double = 10, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else {
                let logs = ["tone", "take"].map { name in "\(name): " + log(name + ".log").split(separator: "\n").filter { !$0.hasPrefix("DSP") }.suffix(12).joined(separator: "\n") }
                throw TestFailure("waited \(seconds) s for \(what); \(logs.joined(separator: "\n"))")
            }
            usleep(50_000)
        }
    }

    /// The sessions, then the daemon; then the folder.
    func stop() {
        for session in sessions.reversed() where session.isRunning {
            session.terminate()
            session.waitUntilExit()
        }
        stopDaemon()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
