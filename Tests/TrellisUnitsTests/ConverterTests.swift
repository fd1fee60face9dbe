import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Converter channel maps")
struct ConverterTests {
    func convert(_ input: [[Float]], outputs: Int, map: [Int]?) throws -> [[Float]] {
        let converter = Converter()
        try converter.setFormat(.canonical(sampleRate: 48_000, channelCount: input.count), scope: .input, element: 0)
        try converter.setFormat(.canonical(sampleRate: 48_000, channelCount: outputs), scope: .output, element: 0)
        if let map { try converter.setProperty(.channelMap, .channelMap(map), scope: .global, element: 0) }
        return try UnitHarness(converter).process(input)
    }

    let a: [Float] = [0.1, -0.2, 0.3, 0.9]
    let b: [Float] = [0.5, 0.25, -0.75, 0.1]
    let c: [Float] = [-1, 1, 0, 0.5]
    let d: [Float] = [0.7, 0.6, 0.5, 0.4]

    @Test("a map of [1, 0] swaps left and right")
    func reorder() throws {
        #expect(try convert([a, b], outputs: 2, map: [1, 0]) == [b, a])
    }

    @Test("a mono input is duplicated to both channels of a stereo output")
    func duplicate() throws {
        #expect(try convert([a], outputs: 2, map: nil) == [a, a])
        #expect(try convert([a], outputs: 2, map: [0, 0]) == [a, a])
    }

    @Test("mixing stereo to mono averages the two channels")
    func mixDown() throws {
        let expected = zip(a, b).map { ($0 + $1) / 2 }
        #expect(try convert([a, b], outputs: 1, map: nil) == [expected])
        #expect(try convert([a, b], outputs: 1, map: [ChannelMap.mixAll]) == [expected])
    }

    @Test("a map can drop channels and leave an output silent")
    func dropAndSilence() throws {
        #expect(try convert([a, b, c, d], outputs: 2, map: [0, 3]) == [a, d])
        #expect(try convert([a, b], outputs: 3, map: [1, -1, 0]) == [b, [0, 0, 0, 0], a])
    }

    @Test("a map naming a channel the input lacks is refused")
    func invalidMap() throws {
        let converter = Converter()
        #expect(throws: AudioUnitError.self) {
            try converter.setProperty(.channelMap, .channelMap([0, 2]), scope: .global, element: 0)
        }
    }

    @Test("rendering allocates nothing")
    func noAllocation() throws {
        let converter = Converter()
        try converter.setFormat(.canonical(sampleRate: 48_000, channelCount: 1), scope: .output, element: 0)
        let harness = try UnitHarness(converter)
        for _ in 0..<10 { harness.render(frames: 256) }
        let counts = countAllocations { for _ in 0..<1000 { harness.render(frames: 256) } }
        #expect(counts.allocations == 0 && counts.frees == 0)
    }
}
