import CTrellisShim
import Glibc
import Synchronization
import TrellisCore

/// What a bridge is started with: the plugin, where to find it, and how the host
/// runs it.
struct BridgeSetup: Sendable {
    var uri: String
    var searchPath: String
    var sampleRate: Double
    var layout: BridgeLayout
    var offline: Bool
    /// The input parameters' values, by parameter index.
    var values: [(Int, Float)]
    var state: String?

    var text: String {
        var lines = [
            "uri \(uri)", "path \(searchPath)", "rate \(String(sampleRate.bitPattern, radix: 16))",
            "layout \(layout.words.joined(separator: " "))", "offline \(offline ? 1 : 0)",
            "values \(values.count)",
        ]
        lines += BridgeValues.text(values).split(separator: "\n").map(String.init)
        return lines.joined(separator: "\n") + "\nstate\n" + (state ?? "")
    }

    init(uri: String, searchPath: String, sampleRate: Double, layout: BridgeLayout, offline: Bool, values: [(Int, Float)], state: String?) {
        self.uri = uri
        self.searchPath = searchPath
        self.sampleRate = sampleRate
        self.layout = layout
        self.offline = offline
        self.values = values
        self.state = state
    }

    /// Reads what `text` wrote; nil when a line is missing or malformed.
    init?(text: String) {
        let (head, stateMarker, rest) = text.splitOnce("\nstate\n")
        guard stateMarker else { return nil }
        var fields: [String: Substring] = [:]
        var valueLines: [Substring] = []
        for line in head.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let space = line.firstIndex(of: " ") else { return nil }
            let key = String(line[..<space])
            if Int(key) != nil { valueLines.append(line) } else { fields[key] = line[line.index(after: space)...] }
        }
        guard let uri = fields["uri"], let path = fields["path"], let rate = fields["rate"].flatMap({ UInt64($0, radix: 16) }),
              let layout = fields["layout"].flatMap({ BridgeLayout(words: $0.split(separator: " ", omittingEmptySubsequences: false)) }),
              let offline = fields["offline"]
        else { return nil }
        self.uri = String(uri)
        searchPath = String(path)
        sampleRate = Double(bitPattern: rate)
        self.layout = layout
        self.offline = offline == "1"
        values = BridgeValues.parse(valueLines.joined(separator: "\n"))
        state = rest.isEmpty ? nil : rest
    }
}

extension String {
    fileprivate func splitOnce(_ separator: String) -> (String, Bool, String) {
        let bytes = Array(utf8), marker = Array(separator.utf8)
        guard bytes.count >= marker.count else { return (self, false, "") }
        for start in 0...(bytes.count - marker.count) where bytes[start..<(start + marker.count)].elementsEqual(marker) {
            return (String(decoding: bytes[..<start], as: UTF8.self), true, String(decoding: bytes[(start + marker.count)...], as: UTF8.self))
        }
        return (self, false, "")
    }
}

/// A plugin hosted in a bridge process, on the host's control side: the shared memory,
/// the kernel the program runs, the process and the thread that watches it.
///
/// The watcher wakes every 20 ms at most: when the process ended it records why,
/// marks the kernel faulted and wakes an audio thread that waits for a reply; when the
/// audio thread gave up on a reply (a missed deadline) it kills the process. What it
/// records reaches the engine as a `failed` message (`takeFailures`).
///
/// Thread: control, unless a method says otherwise.
final class LV2Bridge: @unchecked Sendable {
    let uri: String
    let memory: BridgeMemory
    let view: BridgeView
    let kernel: UnsafeMutablePointer<BridgeKernel>
    private let fault: UnsafeMutablePointer<Atomic<Int32>>
    private let deadline: UnsafeMutablePointer<Atomic<Int>>
    private let offline: UnsafeMutablePointer<Atomic<Bool>>
    private let cycleSampleTime: UnsafeMutablePointer<Atomic<Int64>>
    private let processID: UnsafeMutablePointer<Atomic<Int32>>
    private let outputParameters: UnsafeMutablePointer<Int32>
    private let backlog: UnsafeMutablePointer<BridgeBacklog>
    /// The kernel, its atomics and tables; `memory` is the memory shared with the bridge.
    private let arena = Arena()
    private var channel: BridgeChannel?
    private var process: BridgeProcess?
    private var watcher: pthread_t?
    private let watch: BridgeWatch

    /// Starts the bridge for `setup` and waits until the plugin runs in it. `values`
    /// are the host unit's parameter values; `outputs` the indices of its output
    /// parameters. The deadline is `deadlineFraction` of each cycle's duration.
    init(setup: BridgeSetup, values: ParameterValues, outputs: [Int], deadlineFraction: Double, passesInputOnFault: Bool) throws(LV2Error) {
        uri = setup.uri
        memory = try BridgeMemory.create(size: setup.layout.size, name: "trellis-bridge")
        view = BridgeView(base: memory.base, layout: setup.layout, in: arena)
        fault = arena.takeAtomics(1, initial: BridgeKernel.Fault.processEnded.rawValue)
        deadline = arena.takeAtomics(1, initial: Int(deadlineFraction * 1e9 / setup.sampleRate))
        offline = arena.takeAtomics(1, initial: setup.offline)
        cycleSampleTime = arena.takeAtomics(1, initial: -1)
        processID = arena.takeAtomics(1, initial: 0)
        outputParameters = arena.copy(outputs.map { Int32($0) })
        backlog = BridgeBacklog.make(in: arena)
        watch = BridgeWatch(uri: setup.uri, fault: fault, reply: view.reply, processID: processID, cycleSampleTime: cycleSampleTime)
        kernel = arena.place(BridgeKernel(
            view: view, fault: fault, deadlinePerFrame: deadline, nanosecondsPerFrame: Int(1e9 / setup.sampleRate),
            offline: offline, cycleSampleTime: cycleSampleTime, process: processID, passesInputOnFault: passesInputOnFault,
            values: values, outputParameters: outputParameters, outputParameterCount: outputs.count, backlog: backlog))
        // A launch that throws leaves a fully initialized object: deinit frees it all.
        try launch(setup)
    }

    deinit {
        stop()
        memory.free()
    }

    /// The kernel as a program holds it.
    var renderKernel: RenderKernel {
        RenderKernel(state: UnsafeMutableRawPointer(kernel), render: { BridgeKernel.render($0, $1) }, reset: { _ in })
    }

    /// Whether the plugin runs now (not faulted, not stopped). Thread: any.
    var isRunning: Bool { fault.pointee.load(ordering: .acquiring) == BridgeKernel.Fault.none.rawValue }

    /// The values the bridge sent with its last reply to a command, by index.
    private(set) var reportedValues: [(Int, Float)] = []

    // MARK: - Starting and stopping

    /// Starts a process for `setup` and waits for the plugin in it; the kernel plays
    /// again once it is ready. The kernel must be faulted (not run) meanwhile.
    private func launch(_ setup: BridgeSetup) throws(LV2Error) {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .bridgeFailed("cannot make a socket pair: \(String(cString: strerror(errno)))", plugin: uri)
        }
        // The log's pipe, a socket pair too: it is made close-on-exec at once.
        var logPipe: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &logPipe) == 0 else {
            close(pair[0])
            close(pair[1])
            throw .bridgeFailed("cannot make a pipe: \(String(cString: strerror(errno)))", plugin: uri)
        }
        UnsafeAtomic(view.request).store(0)
        UnsafeAtomic(view.reply).store(0)
        backlog.pointee.clear()
        let started: BridgeProcess
        do {
            started = try BridgeProcess.spawn(memory: memory.descriptor, socket: pair[1], log: logPipe[1])
        } catch {
            close(pair[0])
            close(pair[1])
            close(logPipe[0])
            close(logPipe[1])
            throw .bridgeFailed("\(error)", plugin: uri)
        }
        close(pair[1])
        close(logPipe[1])
        let log = BridgeLogReader(descriptor: logPipe[0])
        let channel = BridgeChannel(descriptor: pair[0])
        channel.send("setup", setup.text)
        // Instantiating can take a while (a sampler loading its samples).
        guard let reply = channel.receive(timeoutMilliseconds: 30_000) else {
            kill(started.pid, SIGKILL)
            let how = started.wait()
            throw .bridgeFailed("the bridge process \(how) before the plugin was ready", plugin: uri)
        }
        guard reply.command == "ready" else {
            kill(started.pid, SIGKILL)
            _ = started.wait()
            throw .bridgeFailed(reply.body, plugin: uri)
        }
        reportedValues = BridgeValues.parse(reply.body)
        self.channel = channel
        process = started
        processID.pointee.store(started.pid, ordering: .releasing)
        startWatching(started, log: log)
        // A value set while the bridge started went to a faulted kernel: it is sent now,
        // while no cycle is posted yet.
        let values = kernel.pointee.values
        let changed = setup.values.filter { index, sent in values[index].bitPattern != sent.bitPattern }.map { ($0.0, values[$0.0]) }
        if !changed.isEmpty, !(channel.send("set", BridgeValues.text(changed)) && channel.receive(timeoutMilliseconds: 10_000)?.command == "ok") {
            kill(started.pid, SIGKILL)
            throw .bridgeFailed("the plugin's process did not take the parameters set while it started", plugin: uri)
        }
        fault.pointee.store(BridgeKernel.Fault.none.rawValue, ordering: .releasing)
    }

    /// Starts the plugin again in a new process with `setup` (its last saved state),
    /// after a fault or to replace a running one. Thread: control, while the kernel
    /// may run: it outputs as faulted until the new process is ready.
    func restart(_ setup: BridgeSetup) throws(LV2Error) {
        stop()
        try launch(setup)
    }

    /// Ends the process (asking first, then killing) and the watcher. The kernel
    /// outputs as faulted afterwards. Thread: control.
    func stop() {
        fault.pointee.store(BridgeKernel.Fault.processEnded.rawValue, ordering: .releasing)
        futexWakeShared(view.reply)
        // The watcher reaps the process: it waits for it to end, then kills it. Until
        // then its pid is not reused, so the audio thread may still signal it.
        watch.watching.store(false, ordering: .releasing)
        channel?.send("stop")
        if let watcher { pthread_join(watcher, nil) }
        watcher = nil
        // Lines no drain will take now (those of the plugin's teardown): its errors and
        // warnings go to standard error.
        for (level, text) in watch.logLines.take().lines where level == .error || level == .warning {
            let line = "lv2 <\(uri)> (in its bridge process) \(level.rawValue): \(text)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
        }
        processID.pointee.store(0, ordering: .releasing)
        channel?.close()
        channel = nil
        process = nil
    }

    // MARK: - Watching

    private func startWatching(_ process: BridgeProcess, log: BridgeLogReader) {
        watch.watching.store(true, ordering: .releasing)
        let context = Unmanaged.passRetained(WatchContext(watch: watch, process: process, log: log)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { raw in
            let context = Unmanaged<WatchContext>.fromOpaque(raw!).takeRetainedValue()
            context.watch.run(context.process, log: context.log)
            return nil
        }, context) == 0 else {
            Unmanaged<WatchContext>.fromOpaque(context).release()
            watch.watching.store(false, ordering: .releasing)
            return
        }
        watcher = thread
    }

    private final class WatchContext {
        let watch: BridgeWatch
        let process: BridgeProcess
        let log: BridgeLogReader
        init(watch: BridgeWatch, process: BridgeProcess, log: BridgeLogReader) {
            self.watch = watch
            self.process = process
            self.log = log
        }
    }

    /// The lines the plugin logged in the bridge since the last call, and how many were
    /// dropped. Thread: any but audio.
    func takeLog() -> (lines: [(UnitMessage.LogLevel, String)], dropped: Int) { watch.logLines.take() }

    /// Has the bridge send what its plugin logged so far, and reads it: `takeLog` then
    /// has it all. Thread: control.
    func collectLog() {
        guard (try? request("flush", operation: "collecting log lines")) != nil else { return }
        watch.logReader.withLock { reader in reader?.readRest(into: watch.logLines) }
    }

    /// What went wrong since the last call, oldest first, each with the sample time of
    /// the last cycle before it (-1 before the first). Thread: any but audio.
    func takeFailures() -> [(cause: String, sampleTime: Int64)] { watch.failures.withLock { list in defer { list = [] }; return list } }

    /// How many cycles the bridge answered late (each output as on a fault) since the
    /// last call. Thread: any but audio.
    func takeLateCycles() -> Int { backlog.pointee.lateCycles.pointee.exchange(0, ordering: .relaxed) }

    /// The cause of the last fault. Thread: any.
    var lastFailure: String? { watch.lastFailure.withLock { $0 } }

    // MARK: - Commands

    /// Sends a command and returns the reply's body; fails when the bridge is not
    /// running or answers with an error.
    private func request(_ command: String, _ body: String = "", operation: String) throws(LV2Error) -> String {
        guard let channel, isRunning || command == "stop" else {
            throw .bridgeFailed("\(operation): the plugin's process is not running (\(lastFailure ?? "stopped")); restart the node", plugin: uri)
        }
        guard channel.send(command, body), let reply = channel.receive(timeoutMilliseconds: 10_000) else {
            throw .bridgeFailed("\(operation): the plugin's process did not answer", plugin: uri)
        }
        guard reply.command == "ok" else { throw .bridgeFailed("\(operation): \(reply.body)", plugin: uri) }
        return reply.body
    }

    func saveState() throws(LV2Error) -> String { try request("save", operation: "saving state") }

    /// Restores a state text (`preset` false) or a preset by URI; returns the control
    /// values the plugin has now, by parameter index.
    func restore(_ text: String, preset: Bool) throws(LV2Error) -> [(Int, Float)] {
        BridgeValues.parse(try request(preset ? "preset" : "restore", text, operation: preset ? "applying a preset" : "restoring state"))
    }

    /// Sets a parameter while no program runs the kernel.
    func setParameter(index: Int, value: Float) throws(LV2Error) {
        _ = try request("set", BridgeValues.text([(index, value)]), operation: "setting a parameter")
    }

    func setOffline(_ isOffline: Bool) {
        offline.pointee.store(isOffline, ordering: .releasing)
        _ = try? request("offline", isOffline ? "1" : "0", operation: "switching to offline rendering")
    }
}

/// What a bridge's watcher thread shares with the bridge: the fault word and reply
/// futex it sets and wakes (memory the bridge frees only after joining the watcher),
/// whether to go on watching, and the causes it found.
final class BridgeWatch: @unchecked Sendable {
    let uri: String
    private let fault: UnsafeMutablePointer<Atomic<Int32>>
    private let reply: UnsafeMutablePointer<UInt32>
    private let processID: UnsafeMutablePointer<Atomic<Int32>>
    private let cycleSampleTime: UnsafeMutablePointer<Atomic<Int64>>
    let watching = Atomic<Bool>(false)
    let failures = Mutex<[(cause: String, sampleTime: Int64)]>([])
    let lastFailure = Mutex<String?>(nil)
    /// What the plugin logged in the bridge.
    let logLines = BridgeLogLines()
    /// The running process's log pipe: read by the watcher as lines come, and by
    /// `LV2Bridge.takeLog` for what is there; closed when the watcher ends.
    let logReader = Mutex<BridgeLogReader?>(nil)

    init(uri: String, fault: UnsafeMutablePointer<Atomic<Int32>>, reply: UnsafeMutablePointer<UInt32>,
         processID: UnsafeMutablePointer<Atomic<Int32>>, cycleSampleTime: UnsafeMutablePointer<Atomic<Int64>>) {
        self.uri = uri
        self.cycleSampleTime = cycleSampleTime
        self.fault = fault
        self.reply = reply
        self.processID = processID
    }

    /// Waits (20 ms at a time) for the process to end, reading the lines the plugin logs
    /// as they come and killing the process once the audio thread gave up on it; records
    /// why it ended unless it was asked to. Thread: the watcher.
    func run(_ process: BridgeProcess, log: BridgeLogReader) {
        logReader.withLock { $0 = log }
        defer { logReader.withLock { $0 = nil } }
        var killedForDeadline = false
        var logOpen = true
        while true {
            var polled = [pollfd(fd: process.pidfd, events: Int16(POLLIN), revents: 0),
                          pollfd(fd: logOpen ? log.descriptor : -1, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&polled, 2, 20) > 0
            if ready, polled[1].revents != 0 { logOpen = logReader.withLock { _ in log.read(into: logLines) } }
            let ended = ready && polled[0].revents != 0
            if !ended {
                if !watching.load(ordering: .acquiring) {
                    // Stopping: `stop` asked the process to end.
                    if !process.hasEnded(waitingMilliseconds: 1000) { kill(process.pid, SIGKILL) }
                    logReader.withLock { _ in log.readRest(into: logLines) }
                    _ = process.wait()
                    return
                }
                if !killedForDeadline, fault.pointee.load(ordering: .acquiring) == BridgeKernel.Fault.missedDeadline.rawValue {
                    kill(process.pid, SIGKILL)
                    killedForDeadline = true
                }
                continue
            }
            // Faulted before it is reaped: the audio thread signals the pid only when it
            // faults the node itself, and a reaped pid may be another process's.
            let missed = fault.pointee.exchange(BridgeKernel.Fault.processEnded.rawValue, ordering: .acquiringAndReleasing)
                == BridgeKernel.Fault.missedDeadline.rawValue
            processID.pointee.store(0, ordering: .releasing)
            futexWakeShared(reply)
            logReader.withLock { _ in log.readRest(into: logLines) }
            let how = process.wait()
            guard watching.load(ordering: .acquiring) else { return }
            // A crash that took longer than the deadline to end the process is still a crash.
            let killedHere = how.contains("signal \(SIGKILL) ")
            let cause = (missed || killedForDeadline) && killedHere ? "missed its deadline (the bridge process was killed)" : "its bridge process \(how)"
            let sampleTime = cycleSampleTime.pointee.load(ordering: .relaxed)
            failures.withLock { $0.append((cause, sampleTime)) }
            lastFailure.withLock { $0 = cause }
            return
        }
    }
}
