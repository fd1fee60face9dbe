import Synchronization
import Testing
import TrellisCore

@Suite("Arena")
struct ArenaTests {
    @Test("pieces start on cache lines and never overlap, small and large alike")
    func piecesAlignedAndApart() {
        let arena = Arena()
        var pieces: [(start: Int, end: Int)] = []
        for count in [1, 3, 1000, 17, 300_000, 5, 64] {
            let piece = arena.take(count, of: Float.self)
            let start = Int(bitPattern: piece)
            #expect(start % Arena.alignment == 0)
            piece.initialize(repeating: Float(count), count: count)
            pieces.append((start, start + count * MemoryLayout<Float>.stride))
        }
        for (index, piece) in pieces.enumerated() {
            for other in pieces[(index + 1)...] { #expect(piece.end <= other.start || other.end <= piece.start) }
        }
        #expect(arena.footprint >= pieces.reduce(0) { $0 + $1.end - $1.start })
    }

    @Test("values written into one piece stay as written while others are taken")
    func piecesKeepTheirValues() {
        let arena = Arena()
        let first = arena.take(100, repeating: 7 as Int32)
        let copied = arena.copy([1.5, 2.5, 3.5] as [Double])
        for _ in 0..<50 { arena.take(1000, of: UInt8.self).initialize(repeating: 0xFF, count: 1000) }
        #expect((0..<100).allSatisfy { first[$0] == 7 })
        #expect([copied[0], copied[1], copied[2]] == [1.5, 2.5, 3.5])
    }

    @Test("atomics start at their value, each on a line of its own")
    func atomics() {
        let arena = Arena()
        let counters = arena.takeAtomics(3, initial: 41)
        counters[1].add(1, ordering: .relaxed)
        #expect(counters[0].load(ordering: .relaxed) == 41)
        #expect(counters[1].load(ordering: .relaxed) == 42)
        let flag = arena.takeAtomics(1, initial: false)
        #expect(Int(bitPattern: flag) % Arena.alignment == 0)
    }
}
