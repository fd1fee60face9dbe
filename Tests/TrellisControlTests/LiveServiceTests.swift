import Foundation
import Glibc
import Testing
import TrellisTestSupport

/// systemd's side of sd_notify(3): a datagram socket at a path, which `trellis run`
/// finds in `NOTIFY_SOCKET` and sends its state to, a datagram of `KEY=VALUE` lines each.
final class NotifySocket {
    let path: String
    private let descriptor: Int32

    init(in folder: String) throws {
        path = folder + "/notify.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard descriptor >= 0, bound == 0 else { throw TestFailure("could not bind \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(descriptor) }

    /// The datagrams that arrive within `seconds`, or until one holds `line` as a line.
    func receive(within seconds: Double, until line: String? = nil) -> [String] {
        var received: [String] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            let datagram = String(decoding: buffer[..<count], as: UTF8.self)
            received.append(datagram)
            if let line, datagram.split(separator: "\n").contains(Substring(line)) { break }
        }
        return received
    }
}

extension LiveControlTests {
    @Test("under systemd, run says READY=1 once it plays, WATCHDOG=1 only while the engine's cycles advance, and STOPPING=1 on SIGTERM")
    func serviceNotifications() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let notify = try NotifySocket(in: folder)
        let rig = try LiveRig(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"])
        defer { rig.stop() }

        let ready = notify.receive(within: 10, until: "READY=1")
        #expect(ready.contains { $0.hasPrefix("READY=1\nSTATUS=running on JACK \(rig.serverName)") }, "\(ready)")
        let running = notify.receive(within: 3, until: "WATCHDOG=1")
        #expect(running.contains("WATCHDOG=1"), "\(running)")

        // A stopped server runs no cycles: the engine stalls, and the watchdog goes quiet.
        kill(rig.jackdProcessIdentifier, SIGSTOP)
        _ = notify.receive(within: 1)
        let stalled = notify.receive(within: 2.5)
        kill(rig.jackdProcessIdentifier, SIGCONT)
        #expect(!stalled.contains("WATCHDOG=1"), "\(stalled)")
        #expect(stalled.contains { $0.hasPrefix("STATUS=the engine's cycles have stopped") }, "\(stalled)")
        let resumed = notify.receive(within: 5, until: "WATCHDOG=1")
        #expect(resumed.contains("WATCHDOG=1"), "cycles again after SIGCONT: \(resumed)")

        rig.kill(SIGTERM)
        let stopping = notify.receive(within: 2, until: "STOPPING=1")
        #expect(stopping.contains { $0.hasPrefix("STOPPING=1") }, "\(stopping)")
    }
}

extension LiveControlTests {
    @Test("with --keep-takes, a take a crash cut short is repaired and kept as take-1.wav, and the new take records beside it")
    func keptTake() throws {
        let samples = (0..<4800).map { Float($0 % 480) / 480 }
        let session = toneSession + """

            recorders:
              take: { source: trim.0, file: take.wav }

            """
        let rig = try LiveRig(session: session, arguments: ["--keep-takes"]) { folder in
            try FloatWAV.write(samples, sampleRate: 48_000, to: folder + "/take.wav")
            // As a kill -9 leaves it: the header counts no frames.
            let take = try FileHandle(forUpdating: URL(fileURLWithPath: folder + "/take.wav"))
            try take.seek(toOffset: 4)
            take.write(Data([36, 0, 0, 0]))
            try take.seek(toOffset: 40)
            take.write(Data([0, 0, 0, 0]))
            try take.close()
        }
        defer { rig.stop() }
        let log = rig.log(containing: "kept the take")
        #expect(log.contains("kept the take \(rig.folder)/take.wav as \(rig.folder)/take-1.wav, repaired first (4800 frames the header had not counted)"), "\(log)")
        let kept = try Data(contentsOf: URL(fileURLWithPath: rig.folder + "/take-1.wav"))
        #expect(kept.count == 44 + 4 * samples.count)
        #expect(kept[40..<44].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } == UInt32(4 * samples.count), "the header covers every frame")
        #expect(kept[44...].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } == samples, "the audio is the take's, untouched")
        #expect(FileManager.default.fileExists(atPath: rig.folder + "/take.wav"), "the new take records at the recorder's own path")
    }
}
