import Foundation
import Glibc
import Testing
import TrellisAudioFile
import TrellisCore

/// A stereo ramp of `frames` frames, every sample distinct.
private func ramp(_ frames: Int) -> [[Float]] {
    (0..<2).map { channel in (0..<frames).map { Float($0 % 20_000) / 20_000 - Float(channel) * 0.5 } }
}

/// Writes bytes at `offset` of the file, as a crash would leave them.
private func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) {
    let fd = open(path, O_WRONLY)
    _ = pwrite(fd, bytes, bytes.count, off_t(offset))
    close(fd)
}

/// The byte offset of the first chunk named `id`.
private func offset(of id: String, in path: String) throws -> Int {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return try #require(data.range(of: Data(id.utf8))?.lowerBound)
}

@Suite("Recovering a recording whose header was never finished")
struct RecoveryTests {
    @Test("a WAV whose header says no frames reads in full again, as sox reads it", arguments: [SampleType.int16, .int24, .float32])
    func wav(_ sampleType: SampleType) throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("cut.wav")
        let samples = ramp(48_000)
        let writer = try AudioFileWriter(path: path, sampleType: sampleType, sampleRate: 48_000, channelCount: 2)
        try writer.write(channels: samples)
        try writer.close()
        let expected = try AudioFileReader(path: path).readAll()
        // What a writer killed before its header update leaves: RIFF and data sizes, and fact, at 0.
        let data = try offset(of: "data", in: path)
        overwrite(path, at: 4, with: [0, 0, 0, 0])
        overwrite(path, at: data + 4, with: [0, 0, 0, 0])
        if sampleType == .float32 { overwrite(path, at: try offset(of: "fact", in: path) + 8, with: [0, 0, 0, 0]) }
        #expect(try AudioFileReader(path: path).readAll().first?.count ?? 0 < 48_000)

        let report = try AudioFileRecovery.recover(path)
        #expect(report == .init(framesBefore: 0, framesAfter: 48_000))
        #expect(try AudioFileReader(path: path).readAll() == expected)
        #expect(try soxi("s", path) == "48000")
    }

    @Test("a CAF whose data chunk size was never written reads in full again", arguments: [SampleType.int16, .float32])
    func caf(_ sampleType: SampleType) throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("cut.caf")
        let writer = try AudioFileWriter(path: path, sampleType: sampleType, sampleRate: 44_100, channelCount: 2)
        try writer.write(channels: ramp(30_000))
        try writer.close()
        let expected = try AudioFileReader(path: path).readAll()
        overwrite(path, at: try offset(of: "data", in: path) + 4, with: [0, 0, 0, 0, 0, 0, 0, 4])

        let report = try AudioFileRecovery.recover(path)
        #expect(report == .init(framesBefore: 0, framesAfter: 30_000))
        #expect(try AudioFileReader(path: path).readAll() == expected)
    }

    @Test("a file cut inside a frame reads every whole frame, and keeps the partial one's bytes")
    func partialFrame() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("torn.wav")
        let writer = try AudioFileWriter(path: path, sampleType: .int16, sampleRate: 48_000, channelCount: 2)
        try writer.write(channels: ramp(1_000))
        try writer.close()
        let expected = try AudioFileReader(path: path).readAll().map { Array($0.prefix(999)) }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int - 3
        #expect(truncate(path, off_t(size)) == 0)
        #expect(try AudioFileRecovery.recover(path).framesAfter == 999)
        #expect(try AudioFileReader(path: path).readAll() == expected)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int == size)
    }

    @Test("a finished file is left byte for byte as it was")
    func finishedFileUntouched() throws {
        let folder = try TemporaryDirectory()
        for name in ["whole.wav", "whole.caf"] {
            let path = folder.path(name)
            let writer = try AudioFileWriter(path: path, sampleType: .int24, sampleRate: 48_000, channelCount: 2)
            try writer.write(channels: ramp(4_800))
            try writer.close()
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(try AudioFileRecovery.recover(path) == .init(framesBefore: 4_800, framesAfter: 4_800))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test("a file that is not WAV or CAF is refused with its path, and not changed")
    func otherFilesRefused() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("notes.txt")
        try "just text, no audio".write(toFile: path, atomically: false, encoding: .utf8)
        #expect {
            try AudioFileRecovery.recover(path)
        } throws: { "\($0)".contains(path) && "\($0)".contains("not a WAV (RIFF) or CAF file") }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "just text, no audio")
    }

    @Test("a frame size the channels and sample size do not make is not trusted, and the file is left byte for byte")
    func untrustedFrameSize() throws {
        let folder = try TemporaryDirectory()
        for (name, field, value) in [("wide.wav", "fmt ", [UInt8]([0xFF, 0xFF])), ("wide.caf", "desc", [UInt8]([0, 0x01, 0, 0]))] {
            let path = folder.path(name)
            let writer = try AudioFileWriter(path: path, sampleType: .int16, sampleRate: 48_000, channelCount: 2)
            try writer.write(channels: ramp(48_000))
            try writer.close()
            // The frame size: WAV's block align (fmt + 8 + 12), CAF's bytes per packet (desc + 12 + 16).
            overwrite(path, at: try offset(of: field, in: path) + (field == "fmt " ? 20 : 28), with: value)
            overwrite(path, at: try offset(of: "data", in: path) + (field == "fmt " ? 4 : 4), with: field == "fmt " ? [0, 0, 0, 0] : [0, 0, 0, 0, 0, 0, 0, 0])
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect {
                try AudioFileRecovery.recover(path)
            } throws: { "\($0)".contains(path) && "\($0)".contains("cannot be trusted") }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(name)")
        }
    }

    @Test("over 200 mutated headers, recover never makes a file shorter or longer, and leaves what it refuses as it was")
    func mutatedHeaders() throws {
        let folder = try TemporaryDirectory()
        var seed = UInt64(20_261_127)
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 17
        }
        var originals: [String: Data] = [:]
        for (name, type) in [("m.wav", SampleType.int16), ("m24.wav", .int24), ("mf.wav", .float32), ("m.caf", .int16), ("mf.caf", .float32)] {
            let path = folder.path(name)
            let writer = try AudioFileWriter(path: path, sampleType: type, sampleRate: 48_000, channelCount: 2)
            try writer.write(channels: ramp(12_000))
            try writer.close()
            originals[name] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let names = originals.keys.sorted()
        for round in 0..<200 {
            let name = names[round % names.count]
            var bytes = [UInt8](originals[name]!)
            let header = name.hasSuffix(".wav") ? 80 : 120
            for _ in 0..<(1 + Int(next() % 3)) { bytes[Int(next() % UInt64(header))] = UInt8(truncatingIfNeeded: next()) }
            let path = folder.path("mutant-\(round)-" + name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let recovered = try? AudioFileRecovery.recover(path)
            let after = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(after.count == bytes.count, "mutant \(round) of \(name): \(bytes.count) bytes became \(after.count)")
            if recovered == nil || recovered?.repaired == false { #expect(after == Data(bytes), "mutant \(round) of \(name) changed without a repair") }
        }
    }
}
