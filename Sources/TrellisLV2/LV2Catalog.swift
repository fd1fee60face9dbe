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
    /// is opened as lilv opens it and must list the plugin. The libraries are opened by a
    /// prober while the data is still being read. Takes a second or two with hundreds of
    /// plugins, which is why the result is kept. (Whether each instantiates is checked
    /// apart, on first use: `LV2InstantiationChecks`.) Thread: control.
    public static func scan(world: LV2World) -> LV2Catalog {
        let stamps = world.index.stamps()
        world.loadAll()
        var mentions: [String: [String]] = [:]
        for stamp in stamps {
            guard let text = FileSystem.contents(of: stamp.bundle + "manifest.ttl") else { continue }
            for uri in LV2BundleIndex.mentionedURIs(in: text) { mentions[uri, default: []].append(stamp.bundle) }
        }
        var prober = LibraryProbe.Prober()
        var asked = Set<String>()
        let described = world.pluginURIs.map { uri -> (uri: String, info: Result<LV2PluginInfo, LV2Error>, classes: [String]) in
            let info: LV2PluginInfo
            do throws(LV2Error) { info = try world.info(uri: uri) } catch { return (uri, .failure(error), []) }
            if let path = libraryPath(info), asked.insert(path).inserted { prober.ask(path) }
            let classes = world.withLilv { world, state -> [String] in
                guard let plugin = LV2World.findPlugin(uri, world: world, state: &state) else { return [] }
                return LV2World.classURIs(plugin, world: world, state: &state)
            }
            return (uri, .success(info), classes)
        }
        let libraries = prober.answers()
        let entries = described.map { uri, described, classes -> Entry in
            let bundles = mentions[uri] ?? []
            switch described {
            case .failure(let error):
                return Entry(uri: uri, name: uri, type: ComponentType.effect, bundles: bundles, problem: error.description)
            case .success(let info):
                return Entry(
                    uri: uri, name: info.name, type: LV2ComponentCodes.type(classURIs: classes, ports: info.ports),
                    bundles: bundles, problem: problem(info, libraries: libraries))
            }
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

