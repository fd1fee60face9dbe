import Testing
import TrellisAudioFile
import TrellisCore

@Suite("Lossless round trips")
struct RoundTripTests {
    @Test("integer samples v/2^(bits-1) come back bit-exact", arguments: LosslessCase.integers)
    func integerRoundTrip(_ testCase: LosslessCase) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("round-trip.\(testCase.fileExtension)")
        let bits = testCase.sampleType.bitsPerSample
        let left = testIntegers(testCase.sampleType, count: 3000, seed: 1).map { floatSample($0, bits: bits) }
        let right = testIntegers(testCase.sampleType, count: 3000, seed: 2).reversed().map { floatSample($0, bits: bits) }
        try writeFile(path, container: testCase.container, sampleType: testCase.sampleType, channels: [left, right])

        let read = try AudioFileReader(path: path).readAll()
        #expect(read == [left, right])
    }

    @Test("float32 samples come back exact, tiny, near-one and out-of-range ones included",
          arguments: LosslessCase.all.filter { $0.sampleType == .float32 })
    func floatRoundTrip(_ testCase: LosslessCase) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("round-trip.\(testCase.fileExtension)")
        var generator = SplitMix64(seed: 3)
        let special: [Float] = [1e-30, -1e-30, Float(bitPattern: 0x0001_1170), 0.999, -0.999, 1, -1, 0, -0.0, 1.5, -3.25, .leastNonzeroMagnitude, 0.1]
        let samples = special + (0..<2000).map { _ in Float.random(in: -1...1, using: &generator) }
        let channels = [samples, samples.reversed()]
        try writeFile(path, container: testCase.container, sampleType: .float32, channels: channels)

        let read = try AudioFileReader(path: path).readAll()
        #expect(read.map { $0.map(\.bitPattern) } == channels.map { $0.map(\.bitPattern) })
    }
}
