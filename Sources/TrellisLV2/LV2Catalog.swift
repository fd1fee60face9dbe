import CLilv
import CTrellisLV2Shim
import Glibc
import TrellisCore

/// What discovery learned about every installed plugin, kept between runs so that
/// listing plugins and naming one in a chain do not read every plugin's data again.
///
/// A catalog belongs to one search path and is valid while every bundle on it has the
/// stamp it had when the catalog was made (`LV2BundleIndex.Stamp`); `LV2CatalogStore`
/// keeps it on disk and makes a new one when a bundle is added, removed or changed.
public struct LV2Catalog: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var uri: String
        /// The plugin's `doap:name`.
        public var name: String
        /// The component type `LV2ComponentCodes.type` gives its classes and ports.
        public var type: FourCC
        /// The bundles to load for this plugin: those whose manifest names it (its own,
        /// and preset bundles).
        public var bundles: [String]
        /// Why the plugin cannot be loaded, as discovery found; nil when it can.
        public var problem: String?
    }

    /// The search path the catalog was made for (`LV2BundleIndex.directories`, joined).
    public var searchPath: String
    public var stamps: [LV2BundleIndex.Stamp]
    /// Every plugin, sorted by URI.
    public private(set) var entries: [Entry]
    private var positions: [String: Int]

    public init(searchPath: String, stamps: [LV2BundleIndex.Stamp], entries: [Entry]) {
        self.searchPath = searchPath
        self.stamps = stamps
        self.entries = entries.sorted { $0.uri < $1.uri }
        positions = Dictionary(self.entries.enumerated().map { ($1.uri, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func entry(uri: String) -> Entry? { positions[uri].map { entries[$0] } }

    /// Whether the catalog still describes what `index` finds on disk.
    public func matches(_ index: LV2BundleIndex, stamps current: [LV2BundleIndex.Stamp]) -> Bool {
        searchPath == index.directories.joined(separator: ":") && stamps == current
    }

    /// Reads every installed plugin through `world` (which loads every bundle) and checks
    /// that each can be loaded: its required features, its ports, and its library, which
    /// is opened as lilv opens it and must list the plugin. Takes seconds with hundreds
    /// of plugins, which is why the result is kept. (Whether each instantiates is
    /// checked apart, on first use: `LV2InstantiationChecks`.) Thread: control.
    public static func scan(world: LV2World) -> LV2Catalog {
        let stamps = world.index.stamps()
        world.loadAll()
        var mentions: [String: [String]] = [:]
        for stamp in stamps {
            guard let text = FileSystem.contents(of: stamp.bundle + "manifest.ttl") else { continue }
            for uri in LV2BundleIndex.mentionedURIs(in: text) { mentions[uri, default: []].append(stamp.bundle) }
        }
        let described = world.pluginURIs.map { uri -> (String, Result<LV2PluginInfo, LV2Error>) in
            do throws(LV2Error) { return (uri, .success(try world.info(uri: uri))) } catch { return (uri, .failure(error)) }
        }
        let libraries = LibraryProbe.open(Set(described.compactMap { try? $0.1.get() }.compactMap(libraryPath)))
        let entries = described.map { uri, described -> Entry in
            let bundles = mentions[uri] ?? []
            let info: LV2PluginInfo
            switch described {
            case .success(let described): info = described
            case .failure(let error):
                return Entry(uri: uri, name: uri, type: ComponentType.effect, bundles: bundles, problem: error.description)
            }
            let classes = world.withLilv { world, state -> [String] in
                guard let plugin = LV2World.findPlugin(uri, world: world, state: &state) else { return [] }
                return LV2World.classURIs(plugin, world: world, state: &state)
            }
            return Entry(
                uri: uri, name: info.name, type: LV2ComponentCodes.type(classURIs: classes, ports: info.ports),
                bundles: bundles, problem: problem(info, libraries: libraries))
        }
        return LV2Catalog(searchPath: world.index.directories.joined(separator: ":"), stamps: stamps, entries: entries)
    }

    /// What stops a described plugin from loading, checked in the order loading meets it.
    static func problem(_ info: LV2PluginInfo, libraries: LibraryProbe) -> String? {
        let missing = info.missingFeatures
        if !missing.isEmpty { return "needs features Trellis does not provide: \(missing.joined(separator: ", "))" }
        do { _ = try LV2PortLayout(info: info) } catch { return error.description }
        guard let path = libraryPath(info) else { return "it names no lv2:binary" }
        return libraries.problem(library: path, uri: info.uri)
    }

    /// The file path of the plugin's `lv2:binary`.
    static func libraryPath(_ info: LV2PluginInfo) -> String? {
        guard let library = info.library else { return nil }
        return lilv_file_uri_parse(library, nil).map { pointer -> String in
            defer { lilv_free(pointer) }
            return String(cString: pointer)
        } ?? library
    }
}

/// Opens plugin libraries the way lilv does (`RTLD_NOW`, so a missing symbol fails
/// here rather than when the plugin is used) and reads which plugins each provides.
/// Each library is opened in a process of its own (`trellis_lv2_probe_library`): some
/// crash or hang when loaded, and some cannot be unloaded and loaded again in one
/// process. A few run at once, since most of the time is the loader's. Thread: control.
struct LibraryProbe {
    enum Outcome: Equatable {
        case failed(String)
        /// The plugins the library lists; nil when it cannot say (`lv2_lib_descriptor`
        /// only, or no child could be started).
        case provides(Set<String>?)
    }

    /// How long a library may take to load before it is given up as hanging.
    static let timeout = 10.0
    /// Children at once.
    static let width = 8

    private(set) var outcomes: [String: Outcome]

    func problem(library path: String, uri: String) -> String? {
        switch outcomes[path] ?? .provides(nil) {
        case .failed(let reason): return "its library \(path) \(reason)"
        case .provides(let uris?) where !uris.contains(uri): return "its library \(path) does not provide it"
        case .provides: return nil
        }
    }

    private struct Child {
        var path: String
        var pid: pid_t
        var descriptor: Int32
        var output: [UInt8] = []
        var started: Double
    }

    static func open(_ paths: Set<String>) -> LibraryProbe {
        var waiting = paths.sorted()[...]
        var running: [Child] = []
        var outcomes: [String: Outcome] = [:]
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !waiting.isEmpty || !running.isEmpty {
            while running.count < width, let path = waiting.popFirst() {
                var descriptor: Int32 = -1
                let pid = trellis_lv2_probe_library(path, &descriptor)
                if pid > 0 {
                    running.append(Child(path: path, pid: pid, descriptor: descriptor, started: now()))
                } else {
                    outcomes[path] = .provides(nil)
                }
            }
            var pollers = running.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            if poll(&pollers, nfds_t(pollers.count), 100) < 0, errno != EINTR { break }
            var index = running.count - 1
            while index >= 0 {
                defer { index -= 1 }
                var finished = false
                if pollers[index].revents != 0 {
                    let count = read(running[index].descriptor, &chunk, chunk.count)
                    if count > 0 { running[index].output.append(contentsOf: chunk[0..<count]) }
                    finished = count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN)
                }
                let late = !finished && now() - running[index].started > timeout
                guard finished || late else { continue }
                let child = running.remove(at: index)
                outcomes[child.path] = end(child, late: late)
            }
        }
        return LibraryProbe(outcomes: outcomes)
    }

    private static func end(_ child: Child, late: Bool) -> Outcome {
        close(child.descriptor)
        if late { kill(child.pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0, errno == EINTR {}
        if late { return .failed("did not load within \(Int(timeout)) s") }
        let signal = status & 0x7F
        if signal != 0 { return .failed("crashes when loaded (signal \(signal))") }
        let lines = String(decoding: child.output, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch lines.first {
        case "ok": return .provides(Set(lines.dropFirst().filter { !$0.isEmpty }))
        case "lib": return .provides(nil)
        case "none": return .failed("exports no lv2_descriptor")
        case "error": return .failed("does not load: \(lines.dropFirst().first ?? "unknown reason")")
        default: return .failed("stopped while loading (exit status \((status >> 8) & 0xFF))")
        }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
