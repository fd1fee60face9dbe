import CJack
import CTrellisJACKShim
import CTrellisShim
import Glibc

/// A jackd process this program started: for tests (a private server per test, under a
/// unique name) and for `trellis run --start-server`. Control side only.
///
/// Thread: control. The server is stopped when the value is deinitialized, if it still runs.
public final class JACKServer: @unchecked Sendable {
    public let name: String
    public let arguments: [String]
    public let executable: String
    private let logPath: String
    public private(set) var processID: pid_t

    private init(name: String, arguments: [String], executable: String, logPath: String, processID: pid_t) {
        self.name = name
        self.arguments = arguments
        self.executable = executable
        self.logPath = logPath
        self.processID = processID
    }

    deinit { stop() }

    /// Starts `jackd --no-realtime -n NAME -d dummy -r RATE -p PERIOD` and waits until it
    /// accepts clients. Nothing is started unless this is called. Thread: control.
    public static func startPrivateServer(
        name: String, sampleRate: Int = 48000, period: Int = 256, timeoutMilliseconds: Int = 5000
    ) throws(JACKError) -> JACKServer {
        try start(
            name: name,
            arguments: ["--no-realtime", "-n", name, "-d", "dummy", "-r", String(sampleRate), "-p", String(period)],
            timeoutMilliseconds: timeoutMilliseconds
        )
    }

    /// Starts `jackd` with `arguments` (which must name the server `name`), its output
    /// going to `logPath` (or nowhere), and waits until a client can open on it.
    /// Thread: control.
    public static func start(
        name: String, arguments: [String], executable: String = "jackd", logPath: String? = nil,
        timeoutMilliseconds: Int = 5000
    ) throws(JACKError) -> JACKServer {
        if isRunning(name: name) { throw .serverAlreadyRunning(server: name) }
        let log = logPath ?? "/dev/null"
        let processID = try spawn(executable: executable, arguments: arguments, logPath: log)
        let server = JACKServer(name: name, arguments: arguments, executable: executable, logPath: log, processID: processID)
        try server.waitUntilReady(timeoutMilliseconds: timeoutMilliseconds)
        return server
    }

    /// Starts the same server again after `stop()` or `kill()`. Thread: control.
    public func restart(timeoutMilliseconds: Int = 5000) throws(JACKError) {
        guard processID == 0 else { throw .serverAlreadyRunning(server: name) }
        processID = try Self.spawn(executable: executable, arguments: arguments, logPath: logPath)
        try waitUntilReady(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Whether a JACK server of that name (nil: the default) accepts clients right now.
    /// Starts nothing. Thread: control.
    public static func isRunning(name: String?) -> Bool {
        JACKMessages.quietly {
            var status = jack_status_t(rawValue: 0)
            guard let client = trellis_jack_client_open("trellis-probe", JackNoStartServer, &status, name) else {
                return false
            }
            jack_client_close(client)
            return true
        }
    }

    /// Throws `.serverNotRunning` unless a server of that name accepts clients. Thread: control.
    public static func requireRunning(name: String?) throws(JACKError) {
        if !isRunning(name: name) { throw .serverNotRunning(server: name ?? defaultServerName) }
    }

    /// The name libjack uses when none is given.
    public static var defaultServerName: String {
        if let value = getenv("JACK_DEFAULT_SERVER") { return String(cString: value) }
        return "default"
    }

    /// Asks the server to quit (SIGTERM) and waits for it, killing it after `graceMilliseconds`.
    /// Thread: control.
    public func stop(graceMilliseconds: Int = 3000) {
        guard processID != 0 else { return }
        Glibc.kill(processID, SIGTERM)
        if !reap(withinMilliseconds: graceMilliseconds) {
            Glibc.kill(processID, SIGKILL)
            _ = reap(withinMilliseconds: -1)
        }
    }

    /// Kills the server at once (SIGKILL), as a crash would, then removes the semaphores
    /// it would have removed on a clean exit. Thread: control.
    public func kill() {
        guard processID != 0 else { return }
        Glibc.kill(processID, SIGKILL)
        _ = reap(withinMilliseconds: -1)
        removeSemaphores()
    }

    /// jackd names its semaphores `/dev/shm/jack_sem.UID_SERVER_CLIENT`.
    private func removeSemaphores() {
        let prefix = "jack_sem.\(getuid())_\(name)_"
        guard let directory = opendir("/dev/shm") else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if file.hasPrefix(prefix) { unlink("/dev/shm/" + file) }
        }
    }

    /// Whether the jackd process this value started is still alive. Thread: control.
    public var isAlive: Bool {
        guard processID != 0 else { return false }
        var status: Int32 = 0
        if waitpid(processID, &status, WNOHANG) == processID {
            processID = 0
            return false
        }
        return true
    }

    private func waitUntilReady(timeoutMilliseconds: Int) throws(JACKError) {
        var waited = 0
        while waited <= timeoutMilliseconds {
            var status: Int32 = 0
            if waitpid(processID, &status, WNOHANG) == processID {
                processID = 0
                throw .serverExited(server: name, status: status)
            }
            if Self.isRunning(name: name) { return }
            usleep(20_000)
            waited += 20
        }
        stop()
        throw .serverStartTimedOut(server: name, milliseconds: timeoutMilliseconds)
    }

    /// Waits for the process to end; a negative limit waits for ever.
    private func reap(withinMilliseconds limit: Int) -> Bool {
        var status: Int32 = 0
        var waited = 0
        while true {
            let result = waitpid(processID, &status, limit < 0 ? 0 : WNOHANG)
            if result == processID || (result < 0 && errno == ECHILD) {
                processID = 0
                return true
            }
            if limit >= 0 && waited >= limit { return false }
            usleep(10_000)
            waited += 10
        }
    }

    private static func spawn(executable: String, arguments: [String], logPath: String) throws(JACKError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The server outlives this process: it must hold none of its descriptors.
        _ = trellis_spawn_close_from(&actions, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var processID: pid_t = 0
        let result = posix_spawnp(&processID, executable, &actions, nil, argv, environ)
        if result != 0 { throw .serverLaunchFailed(executable: executable, errno: result) }
        return processID
    }
}
