import Synchronization
import TrellisChain
import TrellisCore

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
