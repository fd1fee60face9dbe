import CLilv
import Glibc
import Synchronization
import TrellisCore

/// The host's URI <-> URID table behind the `urid:map` and `urid:unmap` features,
/// shared by every plugin of one `LV2World` so that URIDs mean the same everywhere.
///
/// Thread: any. Looking up a URI the table holds, and unmapping, read plain memory
/// without a lock or an allocation, so a plugin may map a known URI from `run`: the
/// table starts with the vocabulary plugins use (atoms, MIDI, time, patch, parameters,
/// buffer sizes, logging) and keeps every URI mapped since. Only a URI seen for the
/// first time takes the writers' lock and copies the string.
public final class URIDMap: @unchecked Sendable {
    /// The most URIDs one world hands out; past it `map` returns 0, LV2's "not mapped".
    public static let capacity = 16_384
    /// Open-addressed index from a URI's hash to its URID (0: empty), twice the capacity.
    private static var slotCount: Int { 32_768 }
    /// `slotCount - 1`, kept on the instance: the lock-free reads touch no type metadata.
    private let slotMask = URIDMap.slotCount - 1
    private let memory = Arena()

    /// By URID - 1: the URI as a C string the table owns, and its hash.
    private let strings: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let hashes: UnsafeMutablePointer<UInt64>
    /// A slot is written once, with release ordering, after the string and hash it points at.
    private let slots: UnsafeMutablePointer<Atomic<UInt32>>
    /// URIDs handed out; published after each new one's slot.
    private let count = Atomic<UInt32>(0)
    private let writers = Mutex(())
    /// The feature structs; their handles point back at this object.
    let mapFeature: UnsafeMutablePointer<LV2_URID_Map>
    let unmapFeature: UnsafeMutablePointer<LV2_URID_Unmap>

    init() {
        strings = memory.take(Self.capacity, repeating: nil)
        hashes = memory.take(Self.capacity, repeating: 0)
        slots = memory.takeAtomics(Self.slotCount, initial: 0)
        mapFeature = memory.take(1)
        unmapFeature = memory.take(1)
        let handle = Unmanaged.passUnretained(self).toOpaque()
        mapFeature.initialize(to: LV2_URID_Map(handle: handle, map: { handle, uri in
            guard let handle, let uri else { return 0 }
            return Unmanaged<URIDMap>.fromOpaque(handle)._withUnsafeGuaranteedRef { $0.map(cString: uri) }
        }))
        unmapFeature.initialize(to: LV2_URID_Unmap(handle: handle, unmap: { handle, urid in
            guard let handle else { return nil }
            return Unmanaged<URIDMap>.fromOpaque(handle)._withUnsafeGuaranteedRef { $0.unmapCString(urid) }
        }))
        for uri in LV2URI.preMapped { _ = map(uri) }
    }

    deinit {
        for index in 0..<Int(count.load(ordering: .acquiring)) { free(strings[index]) }
    }

    /// The URID of `uri`, assigning the next one the first time. Thread: any.
    public func map(_ uri: String) -> LV2_URID {
        uri.withCString { map(cString: $0) }
    }

    /// The URI of a URID, or nil for one never handed out. Thread: any.
    public func unmap(_ urid: LV2_URID) -> String? {
        unmapCString(urid).map { String(cString: $0) }
    }

    /// URIDs handed out so far. Thread: any.
    public var mappedCount: Int { Int(count.load(ordering: .acquiring)) }

    /// Thread: any; without a lock or an allocation when the table holds `uri`.
    func map(cString uri: UnsafePointer<CChar>) -> LV2_URID {
        let hash = URIString.hash(uri)
        if let found = lookup(uri, hash: hash) { return found }
        return writers.withLock { _ in insert(uri, hash: hash) }
    }

    /// The URID already handed out for `uri`, reading only published slots.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func lookup(_ uri: UnsafePointer<CChar>, hash: UInt64) -> LV2_URID? {
        let mask = slotMask
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let id = slots[slot].load(ordering: .acquiring)
            if id == 0 { return nil }
            let index = Int(id) &- 1
            if hashes[index] == hash, let string = strings[index], URIString.equal(string, uri) { return id }
            slot = (slot &+ 1) & mask
        }
    }

    /// Thread: any, holding `writers`.
    private func insert(_ uri: UnsafePointer<CChar>, hash: UInt64) -> LV2_URID {
        if let found = lookup(uri, hash: hash) { return found }
        let index = Int(count.load(ordering: .relaxed))
        guard index < Self.capacity, let copy = strdup(uri) else { return 0 }
        strings[index] = copy
        hashes[index] = hash
        let id = UInt32(index + 1)
        var slot = Int(truncatingIfNeeded: hash) & slotMask
        while slots[slot].load(ordering: .relaxed) != 0 { slot = (slot + 1) & slotMask }
        slots[slot].store(id, ordering: .releasing)
        count.store(id, ordering: .releasing)
        return id
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    private func unmapCString(_ urid: LV2_URID) -> UnsafePointer<CChar>? {
        guard urid > 0, urid <= count.load(ordering: .acquiring) else { return nil }
        return strings[Int(urid) &- 1].map { UnsafePointer($0) }
    }
}

/// The C-string arithmetic of the table's lock-free reads.
enum URIString {
    /// FNV-1a over the string's bytes.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func hash(_ string: UnsafePointer<CChar>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var byte = string
        while byte.pointee != 0 {
            hash = (hash ^ UInt64(UInt8(bitPattern: byte.pointee))) &* 0x0000_0100_0000_01b3
            byte += 1
        }
        return hash
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func equal(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Bool {
        var index = 0
        while a[index] == b[index] {
            if a[index] == 0 { return true }
            index &+= 1
        }
        return false
    }
}
