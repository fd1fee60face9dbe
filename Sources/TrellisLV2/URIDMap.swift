import CLilv
import Glibc
import Synchronization

/// The host's URI <-> URID table behind the `urid:map` and `urid:unmap` features,
/// shared by every plugin of one `LV2World` so that URIDs mean the same everywhere.
///
/// Thread: any. Plugins map URIs while they are instantiated and from their worker;
/// the table locks, so a plugin that maps from `run` breaks real-time safety on its
/// own account (LV2 forbids it).
public final class URIDMap: @unchecked Sendable {
    private struct Table {
        var ids: [String: LV2_URID] = [:]
        /// Strings owned by the table, by URID - 1; kept until the table dies so
        /// `unmap` can hand out stable C strings.
        var strings: [UnsafeMutablePointer<CChar>] = []
    }

    private let table = Mutex(Table())
    /// The feature structs; their handles point back at this object.
    let mapFeature: UnsafeMutablePointer<LV2_URID_Map>
    let unmapFeature: UnsafeMutablePointer<LV2_URID_Unmap>

    init() {
        mapFeature = .allocate(capacity: 1)
        unmapFeature = .allocate(capacity: 1)
        let handle = Unmanaged.passUnretained(self).toOpaque()
        mapFeature.initialize(to: LV2_URID_Map(handle: handle, map: { handle, uri in
            guard let handle, let uri else { return 0 }
            return Unmanaged<URIDMap>.fromOpaque(handle).takeUnretainedValue().map(String(cString: uri))
        }))
        unmapFeature.initialize(to: LV2_URID_Unmap(handle: handle, unmap: { handle, urid in
            guard let handle else { return nil }
            return Unmanaged<URIDMap>.fromOpaque(handle).takeUnretainedValue().unmapCString(urid)
        }))
    }

    deinit {
        table.withLock { table in for string in table.strings { free(string) } }
        mapFeature.deallocate()
        unmapFeature.deallocate()
    }

    /// The URID of `uri`, assigning the next one the first time. Thread: any.
    public func map(_ uri: String) -> LV2_URID {
        table.withLock { table in
            if let id = table.ids[uri] { return id }
            table.strings.append(strdup(uri))
            let id = LV2_URID(table.strings.count)
            table.ids[uri] = id
            return id
        }
    }

    /// The URI of a URID, or nil for one never handed out. Thread: any.
    public func unmap(_ urid: LV2_URID) -> String? {
        unmapCString(urid).map { String(cString: $0) }
    }

    private func unmapCString(_ urid: LV2_URID) -> UnsafePointer<CChar>? {
        table.withLock { table in
            guard urid > 0, Int(urid) <= table.strings.count else { return nil }
            return UnsafePointer(table.strings[Int(urid) - 1])
        }
    }
}
