import CAllocationCounter
import CLilv
import CTrellisShim
import Dispatch
import Glibc
import Testing
@testable import TrellisLV2

@Suite("The URID table")
struct URIDMapTests {
    @Test("a URI maps to one URID for good, and the URID unmaps to it")
    func mapsAndUnmaps() {
        let urids = URIDMap()
        let uris = (0..<50).map { "urn:trellis:test:uri-\($0)" }
        let first = uris.map(urids.map)
        #expect(Set(first).count == uris.count)
        #expect(!first.contains(0))
        #expect(uris.map(urids.map) == first)
        for (uri, urid) in zip(uris, first) { #expect(urids.unmap(urid) == uri) }
        #expect(urids.unmap(0) == nil)
        #expect(urids.unmap(LV2_URID(urids.mappedCount + 1)) == nil)
    }

    @Test("the vocabulary plugins read and write in run is in the table from the start")
    func vocabularyIsPreMapped() {
        let urids = URIDMap()
        for uri in LV2URI.preMapped {
            let found = uri.withCString { urids.lookup($0, hash: URIString.hash($0)) }
            #expect(found != nil, "\(uri)")
        }
        #expect(urids.mappedCount == Set(LV2URI.preMapped).count)
    }

    @Test("mapping and unmapping a URI the table holds, through the C features, allocates nothing")
    func knownURIsMapWithoutAllocating() {
        let urids = URIDMap()
        // Plain memory: a debug build's array iteration allocates by itself.
        let count = LV2URI.preMapped.count
        let uris = UnsafeMutablePointer<UnsafeMutablePointer<CChar>>.allocate(capacity: count)
        for (index, uri) in LV2URI.preMapped.enumerated() { uris[index] = strdup(uri)! }
        defer {
            for index in 0..<count { free(uris[index]) }
            uris.deallocate()
        }
        let map = urids.mapFeature.pointee, unmap = urids.unmapFeature.pointee
        var unmapped = 0
        trellis_allocation_counter_arm()
        for _ in 0..<100 {
            for index in 0..<count {
                let id = map.map(map.handle, uris[index])
                if let back = unmap.unmap(unmap.handle, id), strcmp(back, uris[index]) == 0 { unmapped += 1 }
            }
        }
        trellis_allocation_counter_disarm()
        #expect(trellis_allocation_counter_allocations() == 0)
        #expect(unmapped == count * 100)
    }

    @Test("threads mapping the same new URIs at once all get the same URID for each")
    func concurrentMappingAgrees() {
        let urids = URIDMap()
        let uris = (0..<2_000).map { "urn:trellis:test:shared-\($0)" }
        let threads = 4
        nonisolated(unsafe) let results = UnsafeMutablePointer<LV2_URID>.allocate(capacity: threads * uris.count)
        defer { results.deallocate() }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            // Each thread walks the URIs from another starting point.
            for step in 0..<uris.count {
                let index = (step + thread * 500) % uris.count
                results[thread * uris.count + index] = urids.map(uris[index])
            }
        }
        for index in uris.indices {
            let urid = results[index]
            #expect(urid != 0)
            for thread in 1..<threads { #expect(results[thread * uris.count + index] == urid) }
            #expect(urids.unmap(urid) == uris[index])
        }
        #expect(urids.mappedCount == Set(LV2URI.preMapped).count + uris.count)
    }

    @Test("a full table answers 0 for a new URI and keeps every URID it handed out")
    func fullTableRefusesNewURIs() {
        let urids = URIDMap()
        let room = URIDMap.capacity - urids.mappedCount
        let uris = (0..<room).map { "urn:trellis:test:fill-\($0)" }
        let ids = uris.map(urids.map)
        #expect(!ids.contains(0))
        #expect(urids.map("urn:trellis:test:one-too-many") == 0)
        #expect(urids.map(uris[room / 2]) == ids[room / 2])
        #expect(urids.unmap(ids[room - 1]) == uris[room - 1])
    }
}
