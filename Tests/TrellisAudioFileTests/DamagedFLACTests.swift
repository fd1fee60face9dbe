import Foundation
import Testing
import TrellisAudioFile
import TrellisCore

/// A FLAC file sox encoded (5 s of stereo 24-bit noise) and what sox decodes from it.
private struct CleanFLAC {
    let bytes: Data
    /// Per channel, as floats: sox's left-justified 32-bit integers / 2^31.
    let channels: [[Float]]

    init(in directory: TemporaryDirectory) throws {
        let path = directory.path("clean.flac")
        try run("sox", ["-n", "-r", "48000", "-c", "2", "-b", "24", path, "synth", "5", "whitenoise", "vol", "0.5"])
        bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let interleaved = int32s(try run("sox", [path, "-t", "s32", "-"]))
        channels = (0..<2).map { channel in stride(from: channel, to: interleaved.count, by: 2).map { Float(interleaved[$0]) / 2_147_483_648 } }
    }

    /// The file with its STREAMINFO's total sample count raised by `extra` (36 bits from
    /// bit 4 of byte 21: after "fLaC", the block header and 13.5 bytes of STREAMINFO).
    func claiming(extra: UInt64, to path: String) throws {
        var copy = bytes
        var total = UInt64(copy[21] & 0x0F) << 32
        for index in 22...25 { total |= UInt64(copy[index]) << UInt64(8 * (25 - index)) }
        total += extra
        copy[21] = (copy[21] & 0xF0) | UInt8((total >> 32) & 0x0F)
        for index in 22...25 { copy[index] = UInt8((total >> UInt64(8 * (25 - index))) & 0xFF) }
        try copy.write(to: URL(fileURLWithPath: path))
    }

    /// The file with the byte at `fraction` of its length inverted.
    func damaged(at fractions: [Double], to path: String) throws {
        var copy = bytes
        for fraction in fractions { copy[Int(Double(copy.count) * fraction)] ^= 0xFF }
        try copy.write(to: URL(fileURLWithPath: path))
    }
}

@Suite("Damaged FLAC frames")
struct DamagedFLACTests {
    @Test("a flipped byte costs only the frames around it, read as silence; every other frame is sox's, at its time", arguments: [
        [0.25], [0.4], [0.55], [0.7], [0.85], [0.3, 0.6],
    ])
    func damagedFramesAreSilent(_ fractions: [Double]) throws {
        let directory = try TemporaryDirectory()
        let clean = try CleanFLAC(in: directory)
        let path = directory.path("damaged.flac")
        try clean.damaged(at: fractions, to: path)

        let reader = try AudioFileReader(path: path)
        let read = try reader.readAll()
        #expect(read[0].count == clean.channels[0].count, "the file keeps its length")
        var lost = 0
        for frame in clean.channels[0].indices {
            let same = (0..<2).allSatisfy { read[$0][frame] == clean.channels[$0][frame] }
            let silent = (0..<2).allSatisfy { read[$0][frame] == 0 }
            #expect(same || silent, "frame \(frame) is neither sox's nor silence")
            if !same { lost += 1 }
            if !(same || silent) { break }
        }
        let damage = reader.damage
        #expect(lost > 0 && damage.errorCount > 0, "the damage was found")
        #expect(lost <= damage.silencedFrames, "\(lost) frames differ, \(damage.silencedFrames) said silenced")
        // sox's frames hold 4,608 samples; a flipped byte costs at most the frame it is in and the next.
        #expect(damage.silencedFrames <= fractions.count * 2 * 4_608, "\(damage)")
    }

    @Test("a seek before, into or past a damaged stretch reads sox's frames or silence, at their time")
    func seekAcrossDamage() throws {
        let directory = try TemporaryDirectory()
        let clean = try CleanFLAC(in: directory)
        let path = directory.path("damaged.flac")
        try clean.damaged(at: [0.5], to: path)
        let whole = try AudioFileReader(path: path).readAll()
        let first = try #require(whole[0].indices.first { whole[0][$0] != clean.channels[0][$0] })

        let reader = try AudioFileReader(path: path)
        let buffers = AudioBufferList(channelCount: 2, frameCapacity: 20_000)
        for start in [first - 1_000, first + 10, first + 9_000, 100] {
            try reader.seek(toFrame: start)
            let got = try reader.read(into: buffers[0], frameCount: 20_000)
            #expect(got == 20_000)
            var silent = 0
            for frame in 0..<got {
                let same = (0..<2).allSatisfy { buffers[0][$0][frame] == clean.channels[$0][start + frame] }
                let isSilent = (0..<2).allSatisfy { buffers[0][$0][frame] == 0 }
                if !same && isSilent { silent += 1 }
                #expect(same || isSilent, "from frame \(start): frame \(start + frame) is neither sox's nor silence")
                if !(same || isSilent) { break }
            }
            // The damaged frame and the next at most, as reading straight through found.
            #expect(silent <= 2 * 4_608, "from frame \(start): \(silent) frames silenced")
        }
    }

    @Test("a header that claims a little more than the file holds reads as silence to its length; one that claims far more is measured and read as long as it is")
    func lyingLength() throws {
        let directory = try TemporaryDirectory()
        let clean = try CleanFLAC(in: directory)
        for (extra, expected) in [(UInt64(1_000), 241_000), (UInt64(50_000_000), 240_000)] {
            let path = directory.path("long-\(extra).flac")
            try clean.claiming(extra: extra, to: path)
            let reader = try AudioFileReader(path: path)
            #expect(reader.info.frameCount == expected, "header +\(extra)")
            #expect(reader.damage.claimedFrames == (expected == 240_000 ? 240_000 + Int(extra) : nil), "\(reader.damage)")
            let buffers = AudioBufferList(channelCount: 2, frameCapacity: 65_536)
            var total = 0, tail: Float = 0
            while true {
                let got = try reader.read(into: buffers[0], frameCount: 65_536)
                if got == 0 { break }
                if total + got > 240_000 { tail = max(tail, (max(0, 240_000 - total)..<got).map { abs(buffers[0][0][$0]) }.max() ?? 0) }
                total += got
            }
            #expect(total == expected, "header +\(extra)")
            #expect(tail == 0, "what is put in past the audio is silence")
        }
    }
}
