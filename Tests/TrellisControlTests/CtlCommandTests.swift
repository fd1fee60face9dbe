import Foundation
import Testing
import TrellisTestSupport

/// Runs the built `trellis` executable, which sits beside the test bundle, with
/// `environment` added to the test's own.
func trellis(
    _ arguments: [String], input: String? = nil, in folder: String? = nil, environment: [String: String] = [:]
) throws -> (status: Int32, stdout: String, stderr: String) {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let process = Process()
    // A deadline that ends in SIGKILL: a command that hangs fails its test, not the suite.
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["-k", "5", "300", directory.appendingPathComponent("trellis").path] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    let out = Pipe(), err = Pipe(), stdin = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

@Suite("trellis ctl")
struct CtlCommandTests {
    @Test("one command prints its reply and exits 0")
    func oneCommand() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let result = try trellis(["ctl", rig.socketPath, "set", "trim", "gain", "-6"])
        #expect(result.status == 0)
        #expect(result.stdout == "ok -6\n")
    }

    @Test("one quoted argument is the whole command line")
    func quotedLine() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let result = try trellis(["ctl", rig.socketPath, "set trim gain -6"])
        #expect(result.status == 0)
        #expect(result.stdout == "ok -6\n")
    }

    /// Starts `trellis ctl` with `arguments`, writes `input` to it without closing its
    /// standard input, and returns the lines it printed within `seconds`.
    static func linesPrinted(_ arguments: [String], input: String?, within seconds: Double) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("trellis")
        process.arguments = arguments
        let out = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        process.standardInput = stdin
        let printed = PipeText(out)
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        Thread.sleep(forTimeInterval: seconds)
        let lines = printed.text.split(separator: "\n").map(String.init)
        // The test process blocks SIGTERM and its children inherit that; SIGKILL always ends.
        kill(process.processIdentifier, SIGKILL)
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return lines
    }

    @Test("a watch given as the command prints each event as it comes, until ctl is stopped")
    func watchCommandStreams() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let lines = try Self.linesPrinted(["ctl", rig.socketPath, "watch", "events=meter", "meters=trim", "rate=20"], input: nil, within: 1.2)
        #expect(lines.first?.hasPrefix("ok events=meter") == true, "\(lines)")
        #expect(lines.dropFirst().filter { $0.hasPrefix("event meter trim.0 ") }.count >= 10, "\(lines)")
    }

    @Test("a script's events print while standard input is still open, not at the next line")
    func scriptEventsStream() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let lines = try Self.linesPrinted(["ctl", rig.socketPath], input: "watch events=meter meters=trim rate=20\n", within: 1.2)
        #expect(lines.first?.hasPrefix("ok events=meter") == true, "\(lines)")
        #expect(lines.dropFirst().filter { $0.hasPrefix("event meter trim.0 ") }.count >= 10, "\(lines)")
    }

    @Test("an error reply exits 1")
    func errorExit() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let result = try trellis(["ctl", rig.socketPath, "get", "trim", "loudness"])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("error UNKNOWN_PARAMETER "))
    }

    @Test("with no command it runs a script from standard input, a reply a line")
    func script() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let result = try trellis(["ctl", rig.socketPath], input: "# a script\nset trim gain -3\n\nget trim gain\nget trim nothing\nhello\n")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(Array(lines.prefix(2)) == ["ok -3", "ok -3"])
        #expect(lines[2].hasPrefix("error UNKNOWN_PARAMETER"))
        #expect(result.status == 1)
    }

    @Test("save takes a path relative to the shell's folder")
    func relativeSave() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let result = try trellis(["ctl", rig.socketPath, "save", "copy.yaml"], in: rig.folder)
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: rig.folder + "/copy.yaml"))
    }

    @Test("a session that is not running is named in the error")
    func notRunning() throws {
        let result = try trellis(["ctl", "/tmp/trellis-no-such-session.sock", "hello"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("trellis-no-such-session.sock"))
    }
}

