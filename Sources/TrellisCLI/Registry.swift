import Synchronization
import TrellisCore
import TrellisLV2
import TrellisMedia
import TrellisUnits

/// Every unit the command line can name.
enum Units {
    /// Built-in units always; LV2 plugins either all at once (for listings) or on
    /// demand, so that naming one plugin loads its bundles, not every plugin. Discovery
    /// is kept in the user's cache and short names in the user's state directory
    /// (`LV2CatalogStore.user`).
    static func registry(scanningLV2 scan: Bool = false) throws -> ComponentRegistry {
        try listing(scanningLV2: scan).registry
    }

    /// What `trellis units` lists: the registry, with every plugin registered when
    /// `scan`, and how many of some plugins were never instantiated in a probe child.
    /// `recheck`: plugins whose probes are forgotten first (`.some(nil)`: all).
    /// `checkingAll`: a scan first probes every plugin not probed yet.
    static func listing(
        scanningLV2 scan: Bool, recheck: [String]?? = nil, checkingAll: Bool = true
    ) throws -> (registry: ComponentRegistry, unchecked: ([String]) -> Int) {
        let registry = ComponentRegistry()
        try BuiltInUnits.register(into: registry)
        try MediaUnits.register(into: registry)
        let world = LV2World()
        world.setLogHandler { message in
            Log.logger.log(level: message.level == .error ? .error : (message.level == .warning ? .warning : .debug),
                           "\(message.plugin): \(message.text)")
        }
        let store = LV2CatalogStore.user
        for refusal in LV2CatalogStore.refusedFolders where warned.withLock({ $0.insert(refusal).inserted }) {
            Log.logger.warning("\(refusal)")
        }
        if let recheck { world.instantiationChecks(store: store).forget(recheck) }
        if scan { LV2Components.registerAll(into: registry, world: world, store: store, checkingInstantiation: checkingAll) }
        LV2Components.addResolver(to: registry, world: world, store: store)
        return (registry, { uris in world.instantiationChecks(store: store).uncheckedCount(of: uris) })
    }

    /// The folder refusals already said.
    private static let warned = Mutex<Set<String>>([])
}

/// Every unit a running session's `units` command lists, LV2 plugins included: scanned
/// once, on a thread of its own (the web desk starts it), never on the dispatcher's.
final class UnitCatalog: Sendable {
    static let shared = UnitCatalog()
    private let scanned = Mutex<[Component]?>(nil)
    private let scanning = Mutex<Void>(())

    /// The catalog, or nil while the first scan runs. Thread: any; never waits.
    @Sendable func ready() -> [Component]? { scanned.withLock { $0 } }

    /// Scans once. Thread: any but the dispatcher's queue (a first scan can take seconds).
    func scan() {
        scanning.withLock { _ in
            guard ready() == nil else { return }
            let all = (try? Units.registry(scanningLV2: true).components) ?? []
            scanned.withLock { $0 = all }
        }
    }
}
