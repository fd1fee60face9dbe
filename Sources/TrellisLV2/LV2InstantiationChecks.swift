import Glibc
import Synchronization

/// What instantiating each plugin in a child process found (`InstantiationProbe`):
/// nothing (it works), or why it cannot be used (it crashed or hung twice, or refused),
/// and when. `trellis units --recheck` forgets it and checks again. A plugin
/// is checked on its first use, before it is ever instantiated in this process, and
/// `trellis units` checks every plugin. Results are kept beside the discovery cache
/// (`lv2-checked-<hash of the search path>`), for as long as the bundles on disk stay as they were.
///
/// Thread: any (one lock); checking runs children and takes from milliseconds to
/// seconds, so it is control-thread work.
public final class LV2InstantiationChecks: Sendable {
    private let file: String?
    private let directory: String?
    private let index: LV2BundleIndex
    /// The bundles' stamps the results are for, and the results (URI → problem, "" for none).
    private let state: Mutex<(stamps: String, results: [String: String])>

    /// The checks for `index`'s plugins, read from `store`'s cache when there is one.
    public init(index: LV2BundleIndex, store: LV2CatalogStore?) {
        self.index = index
        file = store?.checksPath(index)
        directory = store?.cacheDirectory
        let stamps = Self.fingerprint(index)
        var results: [String: String] = [:]
        if let file, let text = FileSystem.contents(of: file) {
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            if lines.first.map(String.init) == stamps {
                lines.removeFirst()
                for line in lines {
                    let fields = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
                    if fields.count == 2 { results[String(fields[0])] = String(fields[1]) }
                }
            }
        }
        state = Mutex((stamps, results))
    }

    /// Why `uri` cannot be instantiated, checking it in a child first if it never was;
    /// nil when it works (or no child could run the check). Thread: control.
    public func problem(of uri: String) -> String? {
        if let known = state.withLock({ $0.results[uri] }) { return known.isEmpty ? nil : known }
        check([uri])
        return state.withLock { $0.results[uri] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// How many of `uris` were never checked. Thread: any.
    public func uncheckedCount(of uris: [String]) -> Int {
        state.withLock { state in uris.count { state.results[$0] == nil } }
    }

    /// The problem recorded for `uri` without checking; nil when it works or is not checked.
    public func recordedProblem(of uri: String) -> String? {
        state.withLock { $0.results[uri] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Checks every one of `uris` not checked yet, several children at once, and keeps
    /// what they found, with when. Thread: control.
    public func check(_ uris: [String]) {
        let unknown = state.withLock { state in uris.filter { state.results[$0] == nil } }
        guard !unknown.isEmpty, BridgeProcess.executable != nil else { return }
        let problems = InstantiationProbe.problems(of: unknown, searchPath: index.directories.joined(separator: ":"))
        let checked = Self.now()
        save(state.withLock { state in
            for uri in unknown { state.results[uri] = problems[uri].map { "\($0) (checked \(checked))" } ?? "" }
            return Self.text(state)
        })
    }

    /// Drops what was found for `uris` (for every plugin when nil), so each is checked
    /// again on its next use or listing. Thread: control.
    public func forget(_ uris: [String]?) {
        save(state.withLock { state in
            if let uris { for uri in uris { state.results[uri] = nil } } else { state.results = [:] }
            return Self.text(state)
        })
    }

    private static func text(_ state: (stamps: String, results: [String: String])) -> String {
        ([state.stamps] + state.results.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value.filter { $0 != "\n" })" })
            .joined(separator: "\n") + "\n"
    }

    private func save(_ text: String) {
        if let file, let directory, LV2CatalogStore.makePrivateDirectory(directory) { FileSystem.replace(file, with: text) }
    }

    /// The time now, to the minute, in UTC.
    private static func now() -> String {
        var seconds = time(nil), parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M UTC", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func fingerprint(_ index: LV2BundleIndex) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for stamp in index.stamps() {
            for byte in (stamp.bundle + "\u{1}" + stamp.text + "\u{2}").utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01B3 }
        }
        return "stamps " + String(hash, radix: 16)
    }
}
