import Foundation
import Testing
import TrellisCore

@Suite("Lock-free single-producer single-consumer ring")
struct SPSCRingTests {
    @Test("A ring hands values over in order and refuses values beyond its capacity")
    func ringOrderAndCapacity() {
        let ring = SPSCRing<Int>(capacity: 5)
        #expect(ring.capacity == 8)
        for value in 0..<10 { _ = ring.push(value) }
        #expect(ring.refusedCount == 2)
        var popped: [Int] = []
        while let value = ring.pop() { popped.append(value) }
        #expect(popped == Array(0..<8))
    }

    @Test("A ring carries a million values between two threads without loss or reordering")
    func ringAcrossThreads() {
        let ring = SPSCRing<Int>(capacity: 64)
        let total = 1_000_000
        // Threads of their own: two spinning tasks could wait forever on a two-thread pool.
        Thread.detachNewThread {
            var next = 0
            while next < total { if ring.push(next) { next += 1 } }
        }
        var expected = 0
        var inOrder = true
        while expected < total {
            if let value = ring.pop() {
                inOrder = inOrder && value == expected
                expected += 1
            }
        }
        #expect(inOrder)
    }

}
