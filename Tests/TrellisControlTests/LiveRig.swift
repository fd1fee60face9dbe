import Foundation
import Testing
import TrellisControl
import TrellisJACK

/// A private jackd (dummy backend, 48 kHz, 256-frame periods) and a session playing on
/// it through a JACK head node that pulls the session's engine, controlled on a socket.
/// jackd runs real-time when the machine allows it (as it does on a musician's), so
/// that the audio thread is scheduled ahead of the control threads as it would be
/// there; the control plane must still never make it wait.
final class LiveRig: @unchecked Sendable {
    let server: JACKServer
    let control: ControlRig

    init(session: String = toneSession) throws {
        let name = "trellis-ctl-\(UUID().uuidString.prefix(8))"
        let dummy = ["-d", "dummy", "-r", "48000", "-p", "256"]
        let server = try (try? JACKServer.start(name: name, arguments: ["-R", "-P", "70", "-n", name] + dummy))
            ?? (try JACKServer.startPrivateServer(name: name, sampleRate: 48000, period: 256))
        self.server = server
        do {
            control = try ControlRig(session: session) { target in
                let configuration = JACKConfiguration(clientName: "trellis", serverName: server.name, inputChannels: 0, outputChannels: 1)
                let head = try JACKHeadNode(configuration: configuration, source: target.session.graph.engine) { settings in
                    try target.prepare(frames: settings.maximumFrames, sampleRate: settings.sampleRate)
                }
                target.head = head
                target.session.graph.engine.startRendering()
                try head.start()
            }
        } catch {
            server.stop()
            throw error
        }
    }

    var head: JACKHeadNode { control.target.head! }

    func stop() {
        head.stop()
        control.graph.engine.stopRendering()
        control.stop()
        server.stop()
    }
}

/// Every test that talks to jackd lives under this suite and runs one at a time: libjack
/// keeps per-process state about the server it talks to.
@Suite("Control of a live session on a real jackd", .serialized)
struct LiveControlTests {}
