import Dispatch
import Foundation
import TrellisJACK

/// What `run` and live chains share: finding (or starting, or waiting for) a JACK
/// server, and waiting for SIGINT, SIGTERM or the end of a duration.
enum LiveRunning {
    /// Returns a private server this process started, or nil when one was running.
    /// With `waitingFor`, a missing server is waited for (checked each second, `waiting`
    /// told once) until it is up or the interruption comes; then this throws.
    static func ensureServer(
        named server: String?, startIfMissing: Bool, waitingFor interruption: Interruption? = nil, waiting: (String) -> Void = { _ in }
    ) throws(CLIError) -> JACKServer? {
        ignoreSIGPIPE()
        guard !JACKServer.isRunning(name: server) else { return nil }
        let named = server.map { "named \"\($0)\" " } ?? ""
        if let interruption, !startIfMissing {
            waiting("waiting for the JACK server \(named)to start")
            while !JACKServer.isRunning(name: server) {
                if interruption.wait(seconds: 1) { throw CLIError("stopped while waiting for the JACK server \(named)to start") }
            }
            return nil
        }
        guard startIfMissing else {
            throw CLIError("no JACK server \(named)is running; start one (e.g. `jackd -d alsa`), or pass --start-server for a private one on the dummy backend")
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
    static func waitForInterrupt(_ interruption: Interruption = Interruption(), duration: Double?, tick: () -> Void = {}) {
        let started = Date()
        while !interruption.wait(seconds: 0.5) {
            tick()
            if let duration, Date().timeIntervalSince(started) >= duration { break }
        }
    }
}

/// SIGINT and SIGTERM, caught from the moment this is made until it is released.
/// Thread: the one that made it waits; the signals arrive on a dispatch queue.
final class Interruption {
    private let arrived = DispatchSemaphore(value: 0)
    private let sources: [any DispatchSourceSignal]
    private let happened = FailureFlag()

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let arrived = self.arrived, happened = self.happened
        sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                happened.raise()
                arrived.signal()
            }
            source.resume()
            return source
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
    }

    /// True once a signal has come.
    var hasHappened: Bool { happened.isRaised }

    /// Waits up to `seconds`; true when a signal has come (now or before).
    func wait(seconds: Double) -> Bool {
        _ = arrived.wait(timeout: .now() + seconds)
        return hasHappened
    }
}
