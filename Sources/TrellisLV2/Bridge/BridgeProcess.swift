import CTrellisShim
import Glibc

/// A bridge process: `trellis bridge` started with `posix_spawn`, the shared memory
/// on descriptor 3 and its end of the control socket on descriptor 4. The host keeps
/// its pid and a pidfd that becomes readable when it exits. One owner reaps it (`wait`).
struct BridgeProcess {
    let pid: pid_t
    let pidfd: Int32

    /// The program started as a bridge: `TRELLIS_BRIDGE_EXECUTABLE` when set, else this
    /// process's own executable when it is the `trellis` command; nil otherwise (a
    /// program linking the library must say where `trellis` is). Thread: any.
    static var executable: String? {
        if let override = getenv("TRELLIS_BRIDGE_EXECUTABLE") { return String(cString: override) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name == "trellis" || name == "trellis-nsm" ? path : nil
    }

    /// Starts a bridge with `memory`, `socket` and `log` (a pipe's write end) as its
    /// descriptors 3, 4 and 5.
    static func spawn(memory: Int32, socket: Int32, log: Int32) throws(LV2Error) -> BridgeProcess {
        try spawn(arguments: ["bridge", "--parent", "\(getpid())"], descriptors: [(memory, 3), (socket, 4), (log, BridgeLog.descriptor)])
    }

    /// Starts `trellis` with `arguments`, each (descriptor, number) pair in `descriptors`
    /// given to it under that number.
    /// `quiet` sends its standard error to /dev/null (probes: what plugins print as they
    /// are instantiated is not the user's business).
    static func spawn(arguments extra: [String], descriptors: [(Int32, Int32)], quiet: Bool = false) throws(LV2Error) -> BridgeProcess {
        guard let path = executable else {
            throw .bridgeFailed("no trellis executable to run the bridge: this program is not trellis; set TRELLIS_BRIDGE_EXECUTABLE", plugin: "")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, number) in descriptors { posix_spawn_file_actions_adddup2(&actions, descriptor, number) }
        if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        // Nothing else of the host's: a listening socket a bridge inherited would keep its
        // port taken after the host closed it (a web desk's, across an NSM switch).
        _ = trellis_spawn_close_from(&actions, max(2, descriptors.map(\.1).max() ?? 2) + 1)
        let arguments = [path] + extra
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // The Swift runtime's backtracer would spend seconds on a plugin's crash.
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("SWIFT_BACKTRACE=enable=no")]
        var entry = environ
        while let variable = entry.pointee {
            if strncmp(variable, "SWIFT_BACKTRACE=", 16) != 0 { environment.append(strdup(variable)) }
            entry += 1
        }
        environment.append(nil)
        defer { for pointer in environment { free(pointer) } }
        // A process group of its own: a terminal's Ctrl-C is for the host, which stops
        // its bridges itself (and they die with it in any case).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, &attributes, &argv, &environment)
        guard status == 0 else {
            throw .bridgeFailed("cannot start \(path): \(String(cString: strerror(status)))", plugin: "")
        }
        let pidfd = trellis_pidfd_open(pid)
        guard pidfd >= 0 else {
            let reason = String(cString: strerror(errno))
            kill(pid, SIGKILL)
            var ignored: Int32 = 0
            waitpid(pid, &ignored, 0)
            throw .bridgeFailed("cannot watch the bridge process: \(reason)", plugin: "")
        }
        return BridgeProcess(pid: pid, pidfd: pidfd)
    }

    /// Whether the process ended, waiting at most `milliseconds`.
    func hasEnded(waitingMilliseconds milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    /// Reaps the process (after it ended, or blocking until it does) and closes the
    /// pidfd; returns how it ended, in words.
    func wait() -> String {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
        close(pidfd)
        guard result == pid else { return "ended (its status is unknown)" }
        return Self.describe(status: status)
    }

    static func describe(status: Int32) -> String {
        let signal = status & 0x7f
        if signal == 0 { return "exited with status \((status >> 8) & 0xff)" }
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGKILL: "SIGKILL", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
            SIGILL: "SIGILL", SIGTERM: "SIGTERM", SIGTRAP: "SIGTRAP", SIGSYS: "SIGSYS",
        ]
        let what = String(cString: strsignal(signal))
        return "was killed by signal \(signal) (\(names[signal].map { "\($0), " } ?? "")\(what))"
    }
}

/// The anonymous memory a host shares with its bridge: a memfd of `size` bytes, mapped.
/// The host owns both and frees them once (`free`).
struct BridgeMemory {
    let descriptor: Int32
    let base: UnsafeMutableRawPointer
    let size: Int

    static func create(size: Int, name: String) throws(LV2Error) -> BridgeMemory {
        let descriptor = trellis_memfd(name, UInt64(size))
        guard descriptor >= 0 else { throw .bridgeFailed("cannot make shared memory: \(String(cString: strerror(errno)))", plugin: "") }
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .bridgeFailed("cannot map shared memory: \(reason)", plugin: "")
        }
        memset(base, 0, size)
        return BridgeMemory(descriptor: descriptor, base: base, size: size)
    }

    /// Maps memory a host made (the bridge's side); the descriptor stays open.
    static func map(descriptor: Int32, size: Int) -> UnsafeMutableRawPointer? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int(status.st_size) >= size else { return nil }
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED else { return nil }
        return base
    }

    func free() {
        munmap(base, size)
        close(descriptor)
    }
}
