import CLilv
import Glibc
import Synchronization
import TrellisCore

/// The one place Trellis talks to lilv's world: it owns the `LilvWorld`, loads plugin
/// data (all of it, or only the bundles one plugin needs), and frees the world when the
/// last unit using it is gone (units keep their world alive).
///
/// lilv's threading classes, and how Trellis keeps them:
/// - discovery (loading bundles, every query on plugins, ports, nodes, presets):
///   lilv is not thread-safe here, so every such call goes through `withLilv`, which
///   holds this world's lock. Thread: control (never audio).
/// - instantiation (instantiate, free, activate, deactivate, state save/restore):
///   must not overlap the same instance's audio calls; `LV2PluginUnit` makes them on
///   the control thread while it holds its render gate.
/// - audio (`connect_port`, `run`, worker responses): the audio thread only; lock-free.
public final class LV2World: @unchecked Sendable {
    struct State {
        var loadedBundles: Set<String> = []
        var loadedEverything = false
        /// Bundles to load per plugin URI, from a catalog (`use(_:)`).
        var catalogBundles: [String: [String]] = [:]
        /// The catalog `scannedCatalog()` made, kept for the world's life.
        var scanned: LV2Catalog?
        var nodes: [String: OpaquePointer] = [:]
    }

    /// A plugin's log line, with its level.
    public struct LogMessage: Sendable {
        public enum Level: String, Sendable { case error, warning, note, trace }
        public var level: Level
        public var plugin: String
        public var text: String
    }

    let world: OpaquePointer
    private let state: Mutex<State>
    /// Where bundles are searched for.
    public let index: LV2BundleIndex
    /// The URID table every plugin of this world shares.
    public let urids = URIDMap()
    /// In a struct: a bare function type behind the generic lock gains a reabstraction
    /// thunk at every access, a chain that grows with every line logged.
    private struct LogHandler { var body: @Sendable (LogMessage) -> Void }
    private let logHandler: Mutex<LogHandler>

    /// The instantiation checks of this world's plugins, made on first use with the
    /// store first asked for.
    private let checksSlot = Mutex<LV2InstantiationChecks?>(nil)

    /// The checks of this world's plugins, kept in `store`'s cache. Thread: any.
    public func instantiationChecks(store: LV2CatalogStore?) -> LV2InstantiationChecks {
        checksSlot.withLock { slot in
            if let slot { return slot }
            let checks = LV2InstantiationChecks(index: index, store: store)
            slot = checks
            return checks
        }
    }

    /// A world searching `path` (colon-separated directories), or `LV2_PATH`, or lilv's
    /// default when nil. Nothing is loaded yet. Thread: control.
    /// Readies the process for plugins before any world exists (see `HeadlessToolkits`):
    /// call it early, while no other thread runs, when the first world may come later.
    /// Thread: control.
    public static func prepareProcess() { HeadlessToolkits.prepare() }

    public init(path: String? = nil) {
        HeadlessToolkits.prepare()
        guard let world = lilv_world_new() else { fatalError("lilv_world_new failed: out of memory") }
        self.world = world
        index = LV2BundleIndex(path: path)
        state = Mutex(State())
        logHandler = Mutex(LogHandler { message in
            let line = "lv2 <\(message.plugin)> \(message.level.rawValue): \(message.text)"
            let text = line.hasSuffix("\n") ? line : line + "\n"
            _ = text.withCString { write(2, $0, strlen($0)) }
        })
        let pathNode = lilv_new_string(world, index.directories.joined(separator: ":"))
        lilv_world_set_option(world, "http://drobilla.net/ns/lilv#lv2-path", pathNode)
        lilv_node_free(pathNode)
    }

    deinit {
        state.withLock { state in
            for node in state.nodes.values { lilv_node_free(node) }
        }
        lilv_world_free(world)
    }

    /// Runs `body` with exclusive use of the lilv world (lilv's discovery class).
    /// Never nest. Thread: control.
    func withLilv<T, E: Error>(_ body: (OpaquePointer, inout State) throws(E) -> T) throws(E) -> T {
        try state.withLock { (state: inout State) throws(E) -> T in try body(world, &state) }
    }

    /// Sends plugin log lines to `handler` (stderr by default). Thread: any.
    public func setLogHandler(_ handler: @escaping @Sendable (LogMessage) -> Void) {
        logHandler.withLock { $0 = LogHandler(body: handler) }
    }

    func log(_ message: LogMessage) {
        let handler = logHandler.withLock { $0 }
        handler.body(message)
    }

    // MARK: - Loading

    /// Reads the manifest of every installed bundle (what `lv2ls` does). Plugin data
    /// files are still read only when a plugin is queried. Thread: control.
    public func loadAll() {
        let bundles = index.bundles()
        withLilv { world, state in
            guard !state.loadedEverything else { return }
            for bundle in bundles where !state.loadedBundles.contains(bundle) {
                Self.loadBundle(bundle, world: world, state: &state)
            }
            lilv_world_load_specifications(world)
            lilv_world_load_plugin_classes(world)
            state.loadedEverything = true
        }
    }

    /// A catalog of every installed plugin, scanned once in the world's life: without a
    /// store on disk, every later unknown name would otherwise cost a scan. Thread: control.
    public func scannedCatalog() -> LV2Catalog {
        if let catalog = withLilv({ _, state in state.scanned }) { return catalog }
        let catalog = LV2Catalog.scan(world: self)
        withLilv { _, state in state.scanned = catalog }
        return catalog
    }

    /// Lets `load(uri:)` take a plugin's bundles from `catalog` instead of searching the
    /// manifests. Thread: control.
    public func use(_ catalog: LV2Catalog) {
        let bundles = Dictionary(catalog.entries.map { ($0.uri, $0.bundles) }, uniquingKeysWith: { first, _ in first })
        withLilv { _, state in state.catalogBundles = bundles }
    }

    /// Loads just the bundles that mention `uri` (the plugin's own and any preset
    /// bundles): those a catalog lists (`use(_:)`), else those a text search of the
    /// manifests finds. Using one plugin never costs a scan of every plugin. Thread: control.
    public func load(uri: String) throws(LV2Error) {
        let (loaded, listed) = withLilv { world, state in
            (Self.findPlugin(uri, world: world, state: &state) != nil, state.catalogBundles[uri] ?? [])
        }
        if loaded { return }
        if !listed.isEmpty, load(listed, finding: uri) { return }
        guard load(index.bundles(mentioning: uri), finding: uri) else {
            // Only an error pays for the full scan, to suggest what was meant.
            loadAll()
            throw .unknownPlugin(uri, suggestions: Suggestions.closest(to: uri, among: pluginURIs))
        }
    }

    private func load(_ bundles: [String], finding uri: String) -> Bool {
        withLilv { world, state in
            for bundle in bundles where !state.loadedBundles.contains(bundle) {
                Self.loadBundle(bundle, world: world, state: &state)
            }
            return Self.findPlugin(uri, world: world, state: &state) != nil
        }
    }

    /// Loads one bundle directory by path (a fixture, or a bundle outside the search
    /// path). Thread: control.
    public func loadBundle(path: String) throws(LV2Error) {
        let bundle = path.hasSuffix("/") ? path : path + "/"
        guard FileSystem.isFile(bundle + "manifest.ttl") else {
            throw .invalidBundle(path, reason: "it has no manifest.ttl")
        }
        withLilv { world, state in
            if !state.loadedBundles.contains(bundle) { Self.loadBundle(bundle, world: world, state: &state) }
        }
    }

    private static func loadBundle(_ bundle: String, world: OpaquePointer, state: inout State) {
        guard let node = lilv_new_file_uri(world, nil, bundle) else { return }
        lilv_world_load_bundle(world, node)
        lilv_node_free(node)
        state.loadedBundles.insert(bundle)
    }

    // MARK: - Queries

    /// URIs of every plugin loaded so far, sorted. Thread: control.
    public var pluginURIs: [String] {
        withLilv { world, _ in
            var uris: [String] = []
            let plugins = lilv_world_get_all_plugins(world)
            var iterator = lilv_plugins_begin(plugins)
            while !lilv_plugins_is_end(plugins, iterator) {
                if let plugin = lilv_plugins_get(plugins, iterator) {
                    uris.append(String(cString: lilv_node_as_uri(lilv_plugin_get_uri(plugin))))
                }
                iterator = lilv_plugins_next(plugins, iterator)
            }
            return uris.sorted()
        }
    }

    /// Whether a plugin with `uri` is loaded. Thread: control.
    public func hasPlugin(_ uri: String) -> Bool {
        withLilv { world, state in Self.findPlugin(uri, world: world, state: &state) != nil }
    }

    static func findPlugin(_ uri: String, world: OpaquePointer, state: inout State) -> OpaquePointer? {
        lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), node(uri, world: world, state: &state))
    }

    /// A cached URI node, freed with the world.
    static func node(_ uri: String, world: OpaquePointer, state: inout State) -> OpaquePointer {
        if let node = state.nodes[uri] { return node }
        let node = lilv_new_uri(world, uri)!
        state.nodes[uri] = node
        return node
    }
}
