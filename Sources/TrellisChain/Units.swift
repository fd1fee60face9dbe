import Glibc
import Synchronization
import TrellisCore
import TrellisLV2
import TrellisMedia
import TrellisUnits

/// Every unit the command line and the C interface can name.
public enum Units {
    /// Where plugins' log lines and catalog warnings go: (is an error, text) for warnings
    /// and errors, stderr unless set. Thread: any.
    public typealias Report = @Sendable (_ level: ReportLevel, _ text: String) -> Void
    public enum ReportLevel: Sendable { case debug, warning, error }

    /// Sends reports to `report` from now on (the command line's logger). Thread: any.
    public static func setReport(_ report: @escaping Report) { reporter.withLock { $0 = report } }

    private static let reporter = Mutex<Report>({ level, text in
        guard level != .debug else { return }
        let line = "trellis: \(text)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    })

    private static func report(_ level: ReportLevel, _ text: String) { reporter.withLock { $0 }(level, text) }

    /// Built-in units always; LV2 plugins either all at once (for listings) or on
    /// demand, so that naming one plugin loads its bundles, not every plugin. Discovery
    /// is kept in the user's cache and short names in the user's state directory
    /// (`LV2CatalogStore.user`).
    public static func registry(scanningLV2 scan: Bool = false) throws -> ComponentRegistry {
        try listing(scanningLV2: scan).registry
    }

    /// The process's one registry of every unit (`registry()`), made on first use and
    /// shared by everything after: the C interface, TrellisAV, the command line. Thread: any.
    public static func shared() throws -> ComponentRegistry {
        try sharedRegistry.withLock { made in
            if let made { return made }
            let registry = try registry()
            made = registry
            return registry
        }
    }

    private static let sharedRegistry = Mutex<ComponentRegistry?>(nil)

    /// What `trellis units` lists: the registry, with every plugin registered when
    /// `scan`, and how many of some plugins were never instantiated in a probe child.
    /// `recheck`: plugins whose probes are forgotten first (`.some(nil)`: all).
    /// `checkingAll`: a scan first probes every plugin not probed yet.
    public static func listing(
        scanningLV2 scan: Bool, recheck: [String]?? = nil, checkingAll: Bool = true
    ) throws -> (registry: ComponentRegistry, unchecked: ([String]) -> Int) {
        let registry = ComponentRegistry()
        try BuiltInUnits.register(into: registry)
        try MediaUnits.register(into: registry)
        // The LV2 world (which scans the plugin folders) is made when a plugin is first named;
        // the environment plugins need is set now, while the process may have one thread.
        LV2World.prepareProcess()
        let world = LazyWorld()
        let store = LV2CatalogStore.user
        if let recheck { world.made.instantiationChecks(store: store).forget(recheck) }
        if scan { LV2Components.registerAll(into: registry, world: world.made, store: store, checkingInstantiation: checkingAll) }
        LV2Components.addResolver(to: registry, world: { world.made }, store: store)
        return (registry, { uris in world.made.instantiationChecks(store: store).uncheckedCount(of: uris) })
    }

    /// A registry's LV2 world, made on first use, with the catalog's folder refusals said once.
    private final class LazyWorld: Sendable {
        private let world = Mutex<LV2World?>(nil)

        var made: LV2World {
            world.withLock { world in
                if let world { return world }
                let new = LV2World()
                new.setLogHandler { message in
                    report(message.level == .error ? .error : (message.level == .warning ? .warning : .debug), "\(message.plugin): \(message.text)")
                }
                for refusal in LV2CatalogStore.refusedFolders where warned.withLock({ $0.insert(refusal).inserted }) {
                    report(.warning, "\(refusal)")
                }
                world = new
                return new
            }
        }
    }

    /// The folder refusals already said.
    private static let warned = Mutex<Set<String>>([])
}

