import Foundation
import Glibc
import Testing

@Suite("Damaged input files")
struct DamagedInputTests {
    /// `trellis` with a watchdog: nil when it had to be killed after `seconds`.
    func trellisWithin(_ seconds: Double, _ arguments: [String]) throws -> (status: Int32, stderr: String)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("trellis")
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return (process.terminationStatus, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// A session in `folder` whose player `pl` plays `file` (in the folder) to a mono
    /// output; its path.
    func playerSession(playing file: String, in folder: String) throws -> String {
        let session = folder + "/" + (file as NSString).deletingPathExtension + ".yaml"
        try "version: 1\nnodes:\n  pl: { unit: player, file: \(file) }\n  out: { unit: output, channels: 1 }\nconnections: [pl -> out]\n"
            .write(toFile: session, atomically: true, encoding: .utf8)
        return session
    }

    @Test("a FLAC file with a flipped byte anywhere ends a chain in seconds: played through, or an error naming the file")
    func flippedByteNeverHangs() throws {
        let folder = temporaryPath("damaged")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let clean = folder + "/clean.flac"
        let made = try trellis(["chain", "--duration", "4", "--sample-type", "int16", "tone", "freq=440", "!", clean])
        try #require(made.status == 0, "\(made.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: clean))
        for fraction in stride(from: 0.1, through: 0.9, by: 0.05) {
            var damaged = bytes
            let index = Int(Double(bytes.count) * fraction)
            damaged[index] ^= 0xFF
            let path = folder + "/damaged.flac"
            try damaged.write(to: URL(fileURLWithPath: path))
            let result = try trellisWithin(30, ["chain", path, "!", "gain", "gain=-6", "!", folder + "/out.wav"])
            let ended = try #require(result, "byte \(index) of \(bytes.count): the chain hung")
            #expect(ended.status == 0 || ended.stderr.contains(path), "byte \(index): \(ended.stderr)")
        }
    }
}

extension DamagedInputTests {
    @Test("render names a player's damaged FLAC frames and chain counts its source's, each a warning in the summary")
    func damageIsAWarning() throws {
        let good = temporaryPath("good.flac"), folder = (good as NSString).deletingLastPathComponent, bad = folder + "/bad.flac"
        #expect(try runTool("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", good, "synth", "3", "sine", "440", "vol", "0.5"]) == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: good)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: bad))
        let session = try playerSession(playing: "bad.flac", in: folder)
        let rendered = try #require(try trellisWithin(120, ["render", session, "-o", folder + "/render.wav"]))
        #expect(rendered.status == 0 && rendered.stderr.contains("warning: node pl: ") && rendered.stderr.contains("were read as silence")
                && rendered.stderr.contains(", 1 warning\n"), "\(rendered.stderr)")
        let chained = try #require(try trellisWithin(120, ["chain", bad, "!", folder + "/chain.wav"]))
        #expect(chained.status == 0 && chained.stderr.contains("warning: \(bad): ") && chained.stderr.contains(", 1 warning\n"), "\(chained.stderr)")
    }
}

extension DamagedInputTests {
    @Test("a FLAC whose header claims 2^35 frames renders as long as the file plays, with a warning, and a chain of it too")
    func lyingHeaderDoesNotDriveTheLength() throws {
        let good = temporaryPath("one-second.flac"), folder = (good as NSString).deletingLastPathComponent, lying = folder + "/lying.flac"
        #expect(try runTool("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", good, "synth", "1", "sine", "440", "vol", "0.5"]) == 0)
        // STREAMINFO's total samples: 36 bits from the low nibble of its 14th byte (FLAC's format document).
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: good)))
        let streamInfo = 8, claimed: UInt64 = 1 << 35
        bytes[streamInfo + 13] = bytes[streamInfo + 13] & 0xF0 | UInt8(claimed >> 32 & 0x0F)
        for index in 0..<4 { bytes[streamInfo + 14 + index] = UInt8(claimed >> (8 * (3 - UInt64(index))) & 0xFF) }
        try Data(bytes).write(to: URL(fileURLWithPath: lying))
        let session = try playerSession(playing: "lying.flac", in: folder)
        let rendered = try #require(try trellisWithin(120, ["render", session, "-o", folder + "/render.wav"]))
        #expect(rendered.status == 0 && rendered.stderr.contains(": 48000 frames (1.00 s), 1 warning")
                && rendered.stderr.contains("its header claims 34359738368 frames, far more than it holds"), "\(rendered.stderr)")
        let chained = try #require(try trellisWithin(120, ["chain", lying, "!", folder + "/chain.wav"]))
        #expect(chained.status == 0 && chained.stderr.contains(": 48000 frames (1.00 s), 1 warning"), "\(chained.stderr)")
    }
}
