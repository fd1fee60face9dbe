import Foundation
import Glibc
import Testing
import TrellisTestSupport

@Suite("trellis run as a service")
struct ServiceCLITests {
    /// A tone to the output, written as NAME.yaml in `folder/trellis/sessions`.
    static func writeNamedSession(_ name: String, configHome: String) throws {
        let sessions = configHome + "/trellis/sessions"
        try FileManager.default.createDirectory(atPath: sessions, withIntermediateDirectories: true)
        try """
            version: 1
            nodes:
              tone: { unit: tone, channels: 1 }
              out: { unit: output, channels: 1 }
            connections:
              - tone -> out
            """.write(toFile: "\(sessions)/\(name).yaml", atomically: true, encoding: .utf8)
    }

    @Test("a session named alone is found in the user's sessions folder; with no JACK server, run waits for one, logging in the journal's conventions, until SIGTERM")
    func namedSessionWaitsForServer() throws {
        let folder = temporaryPath("service")
        try Self.writeNamedSession("desk", configHome: folder + "/config")
        let log = folder + "/stderr.log"
        FileManager.default.createFile(atPath: log, contents: nil)
        let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        var info = stat()
        #expect(fstat(stderr.fileDescriptor, &info) == 0)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("trellis")
        process.arguments = ["run", "desk", "--server", "trellis-absent-\(getpid())", "--wait-for-server", "--no-control"]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_CONFIG_HOME": folder + "/config", "JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]) { $1 }
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = stderr
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        let waiting = "<5>waiting for the JACK server named \"trellis-absent-\(getpid())\" to start"
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains(waiting), process.isRunning, Date() < deadline {
            usleep(50_000)
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        }
        #expect(text.contains(waiting), "\(text)")
        #expect(process.isRunning, "still waiting: \(text)")

        kill(process.processIdentifier, SIGTERM)
        let ended = Date().addingTimeInterval(10)
        while process.isRunning, Date() < ended { usleep(20_000) }
        #expect(!process.isRunning)
        if process.isRunning { return }
        text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 1)
        #expect(text.contains("<3>Error: stopped while waiting for the JACK server"), "\(text)")
    }

    @Test("a name that is no file and no session in either folder is an error naming where it looked")
    func unknownName() throws {
        let folder = temporaryPath("service")
        let result = try trellis(["run", "no-such-desk"], environment: ["XDG_CONFIG_HOME": folder])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no session named no-such-desk in \(folder)/trellis/sessions/no-such-desk.yaml or /etc/trellis/sessions/no-such-desk.yaml"), "\(result.stderr)")
    }
}
