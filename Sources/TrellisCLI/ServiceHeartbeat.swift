import Foundation
import TrellisJACK

/// What `run` tells systemd on each of its half-second ticks: `WATCHDOG=1` only when
/// the engine ran cycles since the last tick (or the head is waiting for a JACK server
/// that went away, which a restart would not mend), so a stuck engine is restarted;
/// and a `STATUS=` line with the load and xruns every two seconds.
/// Thread: the one that ticks.
struct ServiceHeartbeat {
    let notifier: ServiceNotifier
    private var cycles = -1
    private var lastStatus = Date.distantPast

    init(notifier: ServiceNotifier) { self.notifier = notifier }

    mutating func tick(_ status: JACKStatus) {
        guard notifier.isActive else { return }
        let advanced = status.cycleCount != cycles
        cycles = status.cycleCount
        if advanced || status.phase == .interrupted { notifier.watchdog() }
        guard Date().timeIntervalSince(lastStatus) >= 2 else { return }
        lastStatus = Date()
        notifier.status(Self.line(status, advancing: advanced))
    }

    static func line(_ status: JACKStatus, advancing: Bool) -> String {
        switch status.phase {
        case .interrupted: return "the JACK server \(status.serverName) went away; waiting for it to return"
        case .stopped: return "stopped"
        case .running where !advancing: return "the engine's cycles have stopped (\(status.xrunCount) xruns)"
        case .running:
            return String(format: "running on JACK %@: DSP %.1f%%, %d xruns, %d Hz / %d", status.serverName, status.dspLoad * 100,
                          status.xrunCount, Int(status.sampleRate), status.bufferFrames)
        }
    }
}
