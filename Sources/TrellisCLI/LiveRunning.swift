import Dispatch
import Foundation
import TrellisJACK

/// What `run` and live chains share: finding (or starting) a JACK server, and waiting
/// for SIGINT, SIGTERM or the end of a duration.
enum LiveRunning {
    /// Returns a private server this process started, or nil when one was running.
    static func ensureServer(named server: String?, startIfMissing: Bool) throws(CLIError) -> JACKServer? {
        ignoreSIGPIPE()
        guard !JACKServer.isRunning(name: server) else { return nil }
        guard startIfMissing else {
            throw CLIError("no JACK server \(server.map { "named \"\($0)\" " } ?? "")is running; start one (e.g. `jackd -d alsa`), or pass --start-server for a private one on the dummy backend")
        }
        do {
            let started = try JACKServer.startPrivateServer(name: server ?? "default")
            Log.logger.info("started a private JACK server \"\(server ?? "default")\" (dummy backend, 48 kHz, 256 frames)")
            return started
        } catch {
            throw CLIError("could not start a private JACK server: \(error)")
        }
    }

    /// A live process outlives its peers: from here on, a JACK server or a control client
    /// that goes away is an error from `write`, never a silent death by SIGPIPE.
    static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Calls `tick` every half second until interrupted or `duration` seconds pass.
    static func waitForInterrupt(duration: Double?, tick: () -> Void = {}) {
        let stop = DispatchSemaphore(value: 0)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        let started = Date()
        while stop.wait(timeout: .now() + .milliseconds(500)) == .timedOut {
            tick()
            if let duration, Date().timeIntervalSince(started) >= duration { break }
        }
        sources.forEach { $0.cancel() }
    }
}
