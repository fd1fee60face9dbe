import Foundation
import Testing
import TrellisControl

extension LiveControlTests {
    /// Runs `trellis ctl SOCKET tap stream ...` with its standard output in a file; returns
    /// the floats it wrote and its standard error.
    static func streamed(_ rig: LiveRig, _ words: [String]) throws -> (samples: [Float], stderr: String, status: Int32) {
        let output = rig.folder + "/stream-\(UUID().uuidString.prefix(6)).f32"
        FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("trellis")
        process.arguments = ["ctl", rig.socketPath, "tap", "stream"] + words
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return (data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }, stderr, process.terminationStatus)
    }

    @Test("tap stream NODE.BUS for SECONDS sends that many frames of the bus as raw float32, every frame in order")
    func tapStreamsRawFloats() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let (samples, stderr, status) = try Self.streamed(rig, ["trim.0", "for", "1"])
        #expect(status == 0, "\(stderr)")
        #expect(stderr.hasPrefix("ok trim.0 channels=1 rate=48000 format=f32le"), "\(stderr)")
        #expect(samples.count == 48_000, "\(samples.count) frames for one second")
        // A pure sine keeps x[n-1] + x[n+1] = 2·cos(ω)·x[n]: a lost or repeated buffer breaks it.
        let twoCos = Float(2 * cos(2 * Double.pi * 1_000 / 48_000))
        var worst: Float = 0
        for index in 1..<samples.count - 1 {
            let error: Float = samples[index - 1] + samples[index + 1] - twoCos * samples[index]
            worst = max(worst, abs(error))
        }
        #expect(worst < 1e-4, "the 1 kHz tone arrives whole: worst step error \(worst)")
        #expect(abs((samples.map { abs($0) }.max() ?? 0) - 0.5) < 0.001)
    }

    @Test("a stream goes on until its client closes the connection, then the session serves others as before")
    func tapStreamEndsWithClient() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let client = try rig.client()
        let reply = try client.request("tap stream trim")
        #expect(reply == "ok trim.0 channels=1 rate=48000 format=f32le", "\(reply)")
        var bytes = 0
        let deadline = Date().addingTimeInterval(0.5)
        while Date() < deadline, let chunk = try client.readBytes(timeout: 1) { bytes += chunk.count }
        #expect(bytes >= 4 * 12_000, "\(bytes) bytes in half a second of a 48 kHz mono stream")
        client.close()
        #expect(try rig.ask("status").hasPrefix("ok rate=48000"))
        #expect(try rig.ask("tap stream trim.midi").hasPrefix("error "), "a MIDI bus is refused")
        #expect(try rig.ask("tap stream ghost.0").hasPrefix("error UNKNOWN_NODE"))
    }
}
