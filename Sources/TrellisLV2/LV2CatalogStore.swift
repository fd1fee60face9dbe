import Glibc
import Synchronization
import TrellisCore

/// Where the discovery cache and the short-name table are kept, and how they are read
/// and written.
///
/// - The catalog is a cache: `<cache>/lv2-catalog-<hash of the search path>`, one file
///   per search path, remade when any bundle's stamp changes. Deleting it costs one scan.
/// - The short-name table is state that must outlive the cache:
///   `<state>/lv2-names`, shared by every search path.
///
/// Both directories are made readable by their user only, and one that another user
/// owns or may write is not used at all. A store that cannot write (no home, a read-only
/// disk, a folder refused) still works; it only scans again next time.
/// Thread: control.
public struct LV2CatalogStore: Sendable {
    /// Where the catalog files go (`$XDG_CACHE_HOME/trellis`); nil keeps nothing.
    public var cacheDirectory: String?
    /// Where the name table goes (`$XDG_STATE_HOME/trellis`); nil keeps nothing.
    public var stateDirectory: String?

    public init(cacheDirectory: String?, stateDirectory: String?) {
        self.cacheDirectory = cacheDirectory
        self.stateDirectory = stateDirectory
    }

    /// The user's store, by the XDG base-directory rules: `$XDG_CACHE_HOME` else
    /// `~/.cache`, `$XDG_STATE_HOME` else `~/.local/state` (relative values are ignored,
    /// as the rules say).
    public static var user: LV2CatalogStore {
        func base(_ variable: String, _ fallback: String) -> String? {
            if let value = getenv(variable).map({ String(cString: $0) }), value.hasPrefix("/") { return value }
            guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") else { return nil }
            return home + "/" + fallback
        }
        return LV2CatalogStore(
            cacheDirectory: base("XDG_CACHE_HOME", ".cache").map { $0 + "/trellis" }.flatMap(trusted),
            stateDirectory: base("XDG_STATE_HOME", ".local/state").map { $0 + "/trellis" }.flatMap(trusted))
    }

    /// Why folders were not used, for the program to say once (see `trusted`).
    public static var refusedFolders: [String] { refusals.withLock { $0 } }
    private static let refusals = Mutex<[String]>([])

    /// `folder` when it may hold what the store keeps (`Files.privateFolderProblem`);
    /// else nil, so nothing is read from it or written to it (a catalog another user
    /// could write would name their libraries for this user to load).
    private static func trusted(_ folder: String) -> String? {
        guard let problem = Files.privateFolderProblem(folder) else { return folder }
        let message = "not using \(folder) for the LV2 catalog: \(problem)"
        refusals.withLock { if !$0.contains(message) { $0.append(message) } }
        return nil
    }

    /// The kept catalog for `index`, if it still matches every bundle on disk and names
    /// no bundle but those (an entry pointing anywhere else discards the catalog).
    public func cached(index: LV2BundleIndex) -> LV2Catalog? {
        let stamps = index.stamps()
        guard let path = catalogPath(index), let text = FileSystem.contents(of: path),
              let catalog = LV2Catalog(text: text), catalog.matches(index, stamps: stamps)
        else { return nil }
        let bundles = Set(stamps.map(\.bundle))
        guard catalog.entries.allSatisfy({ $0.bundles.allSatisfy(bundles.contains) }) else { return nil }
        return catalog
    }

    /// The kept catalog for `world`'s search path, or a new scan, kept for next time.
    public func catalog(world: LV2World) -> LV2Catalog {
        if let cached = cached(index: world.index) { return cached }
        let catalog = LV2Catalog.scan(world: world)
        if let path = catalogPath(world.index), let cacheDirectory, Self.makePrivateDirectory(cacheDirectory) {
            FileSystem.replace(path, with: catalog.text)
        }
        return catalog
    }

    /// The short-name table, with every plugin of `catalog` given a name; the table is
    /// written back when a name was given.
    public func names(for catalog: LV2Catalog?) -> LV2ShortNames {
        var names = storedNames()
        guard let catalog, names.assign(catalog.entries.map(\.uri)) else { return names }
        if let stateDirectory, Self.makePrivateDirectory(stateDirectory) {
            FileSystem.replace(stateDirectory + "/lv2-names", with: names.text)
        }
        return names
    }

    /// The short-name table as stored.
    public func storedNames() -> LV2ShortNames {
        guard let stateDirectory, let text = FileSystem.contents(of: stateDirectory + "/lv2-names") else { return LV2ShortNames() }
        return LV2ShortNames(text: text)
    }

    func catalogPath(_ index: LV2BundleIndex) -> String? { cachePath(index, prefix: "lv2-catalog-") }

    /// Where the instantiation checks of `index`'s plugins are kept (`LV2InstantiationChecks`).
    func checksPath(_ index: LV2BundleIndex) -> String? { cachePath(index, prefix: "lv2-checked-") }

    private func cachePath(_ index: LV2BundleIndex, prefix: String) -> String? {
        guard let cacheDirectory else { return nil }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in index.directories.joined(separator: ":").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return cacheDirectory + "/" + prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Makes `path` (mode 0700) and missing parents (0700 too, as XDG asks of its base
    /// directories); true when it is a directory afterwards.
    static func makePrivateDirectory(_ path: String) -> Bool {
        var partial = ""
        for component in path.split(separator: "/") {
            partial += "/" + component
            if !FileSystem.isDirectory(partial) { mkdir(partial, 0o700) }
        }
        return FileSystem.isDirectory(path)
    }
}
