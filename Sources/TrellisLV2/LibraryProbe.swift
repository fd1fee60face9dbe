import CTrellisLV2Shim
import Glibc

/// Opens plugin libraries the way lilv does (`RTLD_NOW`, so a missing symbol fails
/// here rather than when the plugin is used) and reads which plugins each provides.
/// Each library is opened in a process of its own, forked by one prober process
/// (`trellis_lv2_probe_server`): some crash or hang when loaded, and some cannot be
/// unloaded and loaded again in one process. Thread: control.
struct LibraryProbe {
    enum Outcome: Equatable {
        case failed(String)
        /// The plugins the library lists; nil when it cannot say (`lv2_lib_descriptor`
        /// only, or the prober could not be started or gave no answer).
        case provides(Set<String>?)
    }

    /// How long a library may take to load before it is given up as hanging.
    static let timeout = 10.0
    /// Libraries opened at once.
    static let width = 4

    private(set) var outcomes: [String: Outcome]

    func problem(library path: String, uri: String) -> String? {
        switch outcomes[path] ?? .provides(nil) {
        case .failed(let reason): return "its library \(path) \(reason)"
        case .provides(let uris?) where !uris.contains(uri): return "its library \(path) does not provide it"
        case .provides: return nil
        }
    }

    /// One prober process: libraries asked for are opened while the caller goes on;
    /// `answers` waits for them all. The prober, its pipes and its children are gone
    /// once `answers` returns.
    struct Prober: ~Copyable {
        private var pid: pid_t = -1
        private var requests: Int32 = -1
        private var records: Int32 = -1
        private var refused: [String: Outcome] = [:]
        private var count = 0

        init() {
            pid = trellis_lv2_probe_server(Int32(LibraryProbe.width), LibraryProbe.timeout, &requests, &records)
        }

        /// Asks for `path` to be opened.
        mutating func ask(_ path: String) {
            guard !path.contains("\n") else { refused[path] = .failed("has a line break in its path"); return }
            guard pid > 0 else { return }
            let line = Array((path + "\n").utf8)
            var written = 0
            while written < line.count {
                let result = line[written...].withUnsafeBytes { write(requests, $0.baseAddress, $0.count) }
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { return }
                written += result
            }
            count += 1
        }

        /// What every library asked for gave. A library the prober gave no answer for
        /// (it could not be started, or stopped) is left unknown.
        consuming func answers() -> LibraryProbe {
            var outcomes = refused
            guard pid > 0 else { return LibraryProbe(outcomes: outcomes) }
            close(requests)
            requests = -1
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            // The prober gives each library `timeout` seconds; this bounds the whole wait.
            let deadline = Self.now() + LibraryProbe.timeout * Double(count / LibraryProbe.width + 2)
            while Self.now() < deadline {
                var polled = pollfd(fd: records, events: Int16(POLLIN), revents: 0)
                if poll(&polled, 1, 100) < 0, errno != EINTR { break }
                guard polled.revents != 0 else { continue }
                let got = read(records, &chunk, chunk.count)
                if got > 0 { bytes.append(contentsOf: chunk[0..<got]); continue }
                if got < 0, errno == EINTR || errno == EAGAIN { continue }
                break
            }
            Self.end(pid: pid, requests: requests, records: records)
            pid = -1
            let fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            var index = 0
            while index + 2 < fields.count {
                outcomes[fields[index]] = LibraryProbe.outcome(fields[index + 1], answer: fields[index + 2])
                index += 3
            }
            return LibraryProbe(outcomes: outcomes)
        }

        deinit { Self.end(pid: pid, requests: requests, records: records) }

        /// Ends the prober and closes its pipes; its children die with it
        /// (`PR_SET_PDEATHSIG`).
        private static func end(pid: pid_t, requests: Int32, records: Int32) {
            guard pid > 0 else { return }
            if requests >= 0 { close(requests) }
            close(records)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }

        private static func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
    }

    private static func outcome(_ ending: String, answer: String) -> Outcome {
        if ending == "late" { return .failed("did not load within \(Int(timeout)) s") }
        if ending.hasPrefix("signal ") { return .failed("crashes when loaded (\(ending))") }
        let lines = answer.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch lines.first {
        case "ok": return .provides(Set(lines.dropFirst().filter { !$0.isEmpty }))
        case "lib": return .provides(nil)
        case "none": return .failed("exports no lv2_descriptor")
        case "error": return .failed("does not load: \(lines.dropFirst().first ?? "unknown reason")")
        default: return .failed("stopped while loading (exit status \(ending.dropFirst("exit ".count)))")
        }
    }
}
