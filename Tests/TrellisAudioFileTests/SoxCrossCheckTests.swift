import Foundation
import Testing
import TrellisAudioFile
import TrellisCore

/// sox, a program no one here wrote, reads what we write and writes what we read.
@Suite("Cross-checks with sox")
struct SoxCrossCheckTests {
    @Test("sox decodes the integers we wrote, bit for bit", arguments: LosslessCase.integers)
    func soxReadsOurIntegers(_ testCase: LosslessCase) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("ours.\(testCase.fileExtension)")
        let bits = testCase.sampleType.bitsPerSample
        let left = testIntegers(testCase.sampleType, count: 1000, seed: 5)
        let right = testIntegers(testCase.sampleType, count: 1000, seed: 6)
        try writeFile(path, sampleType: testCase.sampleType, channels: [left, right].map { $0.map { floatSample($0, bits: bits) } })

        // sox widens every integer to 32 bits, left-justified, without dither.
        let decoded = int32s(try run("sox", [path, "-t", "s32", "-"]))
        let shift = Int32(32 - bits)
        let expected = zip(left, right).flatMap { [$0 << shift, $1 << shift] }
        #expect(decoded == expected)
    }

    @Test("integers sox encoded read back as integer / 2^(bits-1), exactly", arguments: LosslessCase.integers)
    func weReadSoxIntegers(_ testCase: LosslessCase) throws {
        let directory = try TemporaryDirectory()
        let bits = testCase.sampleType.bitsPerSample
        let left = testIntegers(testCase.sampleType, count: 1000, seed: 7)
        let right = testIntegers(testCase.sampleType, count: 1000, seed: 8)
        let raw = directory.path("known.s32")
        try rawBytes(zip(left, right).flatMap { [$0 << Int32(32 - bits), $1 << Int32(32 - bits)] }).write(to: URL(fileURLWithPath: raw))
        let path = directory.path("sox.\(testCase.fileExtension)")
        try run("sox", ["-D", "-t", "s32", "-r", "44100", "-c", "2", raw, "-e", "signed-integer", "-b", String(bits), path])

        let reader = try AudioFileReader(path: path)
        #expect(reader.info.container == testCase.container)
        #expect(reader.info.encoding == .pcm(testCase.sampleType))
        #expect(reader.info.sampleRate == 44_100)
        #expect(try reader.readAll() == [left, right].map { $0.map { floatSample($0, bits: bits) } })
    }

    @Test("sox puts each of six channels where ours say they are")
    func soxAgreesOnChannelOrder() throws {
        let directory = try TemporaryDirectory()
        // Known interleaved integers: channel c, frame n holds 1000 c + n.
        let frameCount = 500
        let interleaved = (0..<frameCount).flatMap { frame in (0..<6).map { Int32(1000 * $0 + frame) << 16 } }
        let raw = directory.path("six.s32")
        try rawBytes(interleaved).write(to: URL(fileURLWithPath: raw))
        let soxPath = directory.path("sox-six.wav")
        try run("sox", ["-D", "-t", "s32", "-r", "48000", "-c", "6", raw, "-b", "16", soxPath])

        let read = try AudioFileReader(path: soxPath).readAll()
        let expected = (0..<6).map { channel in (0..<frameCount).map { Float(1000 * channel + $0) / 32768 } }
        #expect(read == expected)

        // And the other way: sox's `remix 4` pulls out the fourth channel of our file.
        let ourPath = directory.path("ours-six.wav")
        try writeFile(ourPath, sampleType: .int16, channels: expected)
        let fourth = int32s(try run("sox", [ourPath, "-t", "s32", "-", "remix", "4"]))
        #expect(fourth == (0..<frameCount).map { Int32(3000 + $0) << 16 })
    }

    @Test("soxi reads the header fields we wrote", arguments: LosslessCase.all + [LosslessCase(container: .ogg, sampleType: .float32)])
    func soxiHeaderFields(_ testCase: LosslessCase) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("header.\(testCase.fileExtension)")
        let frameCount = 22_050
        let channels = (0..<3).map { _ in sine(frequency: 1000, amplitude: 0.5, sampleRate: 22_050, frameCount: frameCount) }
        try writeFile(path, sampleType: testCase.sampleType, sampleRate: 22_050, channels: channels)

        // AIFF holds float only in its AIFF-C form, which sox names apart.
        let typeName = switch testCase.container {
        case .aiff: testCase.sampleType == .float32 ? "aifc" : "aiff"
        case .ogg: "vorbis"
        default: testCase.container.rawValue
        }
        let encoding = switch testCase.container {
        case .flac: "FLAC"
        case .ogg: "Vorbis"
        default: testCase.sampleType.isInteger ? "Signed Integer PCM" : "Floating Point PCM"
        }
        #expect(try soxi("r", path) == "22050")
        #expect(try soxi("c", path) == "3")
        #expect(try soxi("s", path) == String(frameCount))  // soxi -s counts frames
        #expect(try soxi("t", path) == typeName)
        #expect(try soxi("e", path) == encoding)
        if testCase.container != .ogg {
            #expect(try soxi("b", path) == String(testCase.sampleType.bitsPerSample))
        }
    }

    @Test("an Ogg Vorbis file sox encoded reads back close to the known sine")
    func weReadSoxVorbis() throws {
        let directory = try TemporaryDirectory()
        let original = sine(frequency: 440, amplitude: 0.5, sampleRate: 48_000, frameCount: 48_000)
        let raw = directory.path("sine.s32")
        try rawBytes(original.map { Int32(($0 * 2_147_483_648).rounded()) }).write(to: URL(fileURLWithPath: raw))
        let path = directory.path("sox.ogg")
        try run("sox", ["-t", "s32", "-r", "48000", "-c", "1", raw, path])

        let reader = try AudioFileReader(path: path)
        #expect(reader.info.encoding == .vorbis)
        let decoded = try reader.readAll().first ?? []
        #expect(decoded.count == original.count)
        var signal = 0.0, noise = 0.0
        for n in 0..<min(decoded.count, original.count) {
            signal += Double(original[n]) * Double(original[n])
            noise += (Double(decoded[n]) - Double(original[n])) * (Double(decoded[n]) - Double(original[n]))
        }
        #expect(10 * log10(signal / max(noise, .leastNormalMagnitude)) > 20)
    }

    @Test("a container Trellis does not handle is refused on reading, named by libsndfile")
    func foreignContainer() throws {
        let directory = try TemporaryDirectory()
        let raw = directory.path("tiny.s32")
        try rawBytes([0, 1 << 20, -1 << 20]).write(to: URL(fileURLWithPath: raw))
        let path = directory.path("sun.au")
        try run("sox", ["-t", "s32", "-r", "8000", "-c", "1", raw, "-b", "16", path])
        let error = #expect(throws: AudioFileError.self) { try AudioFileReader(path: path) }
        guard case .unsupportedContainer(let errorPath, let found) = error else {
            Issue.record("expected unsupportedContainer, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(found.contains("AU"))
    }
}
