import Foundation
import Testing
import TrellisControl
import TrellisJACK
import TrellisLive

/// A private jackd (dummy backend, 48 kHz, 256-frame periods) and a session running on
/// it as `trellis run` runs one (a `LiveSession`), controlled on a socket.
/// jackd runs real-time when the machine allows it (as it does on a musician's), so
/// that the audio thread is scheduled ahead of the control threads as it would be
/// there; the control plane must still never make it wait.
final class LiveRig: @unchecked Sendable {
    let server: JACKServer
    let control: ControlRig
    let live: LiveSession

    init(session: String = toneSession) throws {
        let name = "trellis-ctl-\(UUID().uuidString.prefix(8))"
        let dummy = ["-d", "dummy", "-r", "48000", "-p", "256"]
        let server = try (try? JACKServer.start(name: name, arguments: ["-R", "-P", "70", "-n", name] + dummy))
            ?? (try JACKServer.startPrivateServer(name: name, sampleRate: 48000, period: 256))
        self.server = server
        var made: LiveSession?
        do {
            control = try ControlRig(session: session) { loaded in
                let live = try LiveSession(session: loaded, serverName: server.name, clientName: "trellis")
                try live.start()
                made = live
                return live
            }
        } catch {
            made?.stop()
            server.stop()
            throw error
        }
        live = made!
    }

    var head: JACKHeadNode { live.head }

    func stop() {
        control.stop()
        live.stop()
        server.stop()
    }
}

/// Every test that talks to jackd lives under this suite and runs one at a time: libjack
/// keeps per-process state about the server it talks to.
@Suite("Control of a live session on a real jackd", .serialized)
struct LiveControlTests {}
