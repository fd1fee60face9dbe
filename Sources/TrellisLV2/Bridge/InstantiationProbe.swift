import CTrellisShim
import Glibc
import TrellisCore

/// Instantiates plugins in `trellis bridge --probe` children, so that discovery learns
/// which crash, hang or refuse when instantiated without risking the process that
/// asks. Each child takes a share of the plugins, one after another; when one takes
/// its child down or hangs, a new child tries it again and goes on with the rest; a
/// plugin that fails twice is marked. Thread: control.
enum InstantiationProbe {
    /// How long one plugin may take to instantiate before it counts as hanging.
    static let timeout = 10.0
    /// Children at once.
    static let width = 4

    /// What stops each of `uris` from instantiating (absent: it works), with plugins
    /// found on `searchPath`. Empty when no child can be started (a program that is
    /// not `trellis` and names none): nothing is learned then.
    static func problems(of uris: [String], searchPath: String) -> [String: String] {
        guard !uris.isEmpty, BridgeProcess.executable != nil else { return [:] }
        var problems: [String: String] = [:]
        var failures: [String: Int] = [:]
        var shares = (0..<width).map { share in stride(from: share, to: uris.count, by: width).map { uris[$0] }[...] }
        var running: [Child] = []
        var workable = true
        while workable && (shares.contains { !$0.isEmpty } || !running.isEmpty) {
            for share in shares.indices where !shares[share].isEmpty && !running.contains(where: { $0.share == share }) {
                guard let child = Child.start(share: share, uris: Array(shares[share]), searchPath: searchPath) else {
                    workable = false
                    break
                }
                running.append(child)
            }
            var pollers = running.map { pollfd(fd: $0.output, events: Int16(POLLIN), revents: 0) }
            if poll(&pollers, nfds_t(pollers.count), 100) < 0, errno != EINTR { break }
            var index = running.count - 1
            while index >= 0 {
                defer { index -= 1 }
                let finished = pollers[index].revents != 0 ? !running[index].read() : false
                for (uri, problem) in running[index].takeResults() {
                    shares[running[index].share].removeAll { $0 == uri }
                    if let problem { problems[uri] = problem }
                }
                let late = !finished && running[index].isLate
                guard finished || late else { continue }
                let child = running.remove(at: index)
                let how = child.end(killing: late)
                guard let current = child.current else { shares[child.share] = []; continue }
                // Once may be chance (a thread torn down badly at exit): the next child
                // tries it again first, and only a second failure marks it.
                failures[current, default: 0] += 1
                guard failures[current, default: 0] >= 2 else { continue }
                problems[current] = (late ? "hangs when instantiated (more than \(Int(timeout)) s)" : "crashes when instantiated: it \(how)") + ", in 2 tries of 2"
                shares[child.share].removeAll { $0 == current }
            }
        }
        for child in running { _ = child.end(killing: true) }
        return problems
    }

    /// One probing child: its pid, the pipes, what it said so far.
    private struct Child {
        let share: Int
        let process: BridgeProcess
        let output: Int32
        private var text: [UInt8] = []
        private var results: [(String, String?)] = []
        /// The plugin it started and has not finished, and when.
        private(set) var current: String?
        private var started: UInt64 = 0

        static func start(share: Int, uris: [String], searchPath: String) -> Child? {
            var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
            guard makePipe(&toChild) else { return nil }
            guard makePipe(&fromChild) else {
                close(toChild[0])
                close(toChild[1])
                return nil
            }
            let process = try? BridgeProcess.spawn(arguments: ["bridge", "--probe", "--parent", "\(getpid())"], descriptors: [(toChild[0], 0), (fromChild[1], 1)], quiet: true)
            close(toChild[0])
            close(fromChild[1])
            guard let process else {
                close(toChild[1])
                close(fromChild[0])
                return nil
            }
            let request = ([searchPath] + uris).joined(separator: "\n") + "\n"
            _ = request.withCString { write(toChild[1], $0, strlen($0)) }
            close(toChild[1])
            return Child(share: share, process: process, output: fromChild[0], started: HostClock.now())
        }

        /// A pipe whose ends close on exec (the child gets its end by `dup2`).
        private static func makePipe(_ ends: inout [Int32]) -> Bool {
            guard pipe(&ends) == 0 else { return false }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            return true
        }

        private init(share: Int, process: BridgeProcess, output: Int32, started: UInt64) {
            self.share = share
            self.process = process
            self.output = output
            self.started = started
        }

        var isLate: Bool { current != nil && Double(HostClock.now() &- started) / 1e9 > InstantiationProbe.timeout }

        /// Reads what the child wrote; false at its end.
        mutating func read() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = Glibc.read(output, &chunk, chunk.count)
            if count < 0 { return errno == EINTR || errno == EAGAIN }
            guard count > 0 else { return false }
            text += chunk[0..<count]
            while let newline = text.firstIndex(of: 10) {
                let line = String(decoding: text[..<newline], as: UTF8.self)
                text.removeSubrange(...newline)
                let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard words.count >= 2 else { continue }
                switch words[0] {
                case "start":
                    current = words[1]
                    started = HostClock.now()
                case "ok":
                    results.append((words[1], nil))
                    current = nil
                case "error":
                    results.append((words[1], words.count > 2 ? words[2] : "refused to instantiate"))
                    current = nil
                default: break
                }
            }
            return true
        }

        mutating func takeResults() -> [(String, String?)] {
            defer { results = [] }
            return results
        }

        /// Reaps the child (killing it first when asked); how it ended, in words.
        func end(killing: Bool) -> String {
            if killing { kill(process.pid, SIGKILL) }
            close(output)
            return process.wait()
        }
    }

}

extension LV2BridgeChild {
    /// `trellis bridge --probe`: reads a search path and plugin URIs, a line each, from
    /// standard input, and instantiates each plugin in turn (48 kHz, 1,024 frames),
    /// writing `start URI`, then `ok URI` or `error URI REASON`. A plugin that crashes
    /// ends the process after its `start` line, which is how the host learns of it.
    public static func probe(parent: Int32) -> Int32 {
        guard trellis_die_with_parent() == 0, getppid() == parent else { return 2 }
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(0, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            input += chunk[0..<count]
        }
        var lines = String(decoding: input, as: UTF8.self).split(separator: "\n").map(String.init)
        guard !lines.isEmpty else { return 2 }
        let searchPath = lines.removeFirst()
        func say(_ line: String) { _ = (line + "\n").withCString { write(1, $0, strlen($0)) } }
        for uri in lines {
            say("start \(uri)")
            do {
                let world = LV2World(path: searchPath.isEmpty ? nil : searchPath)
                world.setLogHandler { _ in }
                try world.load(uri: uri)
                let unit = try LV2PluginUnit(world: world, uri: uri)
                try unit.setProperty(.maximumFramesPerSlice, .int(1024), scope: .global, element: 0)
                try unit.initialize()
                unit.uninitialize()
                say("ok \(uri)")
            } catch {
                say("error \(uri) \("\(error)".replacingNewlines)")
            }
        }
        return 0
    }
}

extension String {
    fileprivate var replacingNewlines: String { String(map { $0 == "\n" ? " " : $0 }) }
}
