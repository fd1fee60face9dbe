import CJack
import CTrellisJACKShim
import CTrellisShim
import Glibc
import TrellisCore

extension JACKHeadNode {
    /// The head node's control thread: turns what JACK's threads put in the rings into
    /// events, follows connection changes, notices the server going away, brings the
    /// client back when it returns, and calls listeners. Thread: the control thread.
    func runControlLoop() {
        var reportedLost = 0
        while keepRunning.load(ordering: .relaxed) {
            var events = outbox.withLock { outbox in
                let events = outbox
                outbox.removeAll(keepingCapacity: true)
                return events
            }
            var linksChanged = false
            var portsAppeared = false
            var departed: [UInt32] = []
            while let event = state.notificationEvents.pop() {
                translate(event, into: &events, linksChanged: &linksChanged, portsAppeared: &portsAppeared, departed: &departed)
            }
            while let event = state.processEvents.pop() {
                translate(event, into: &events, linksChanged: &linksChanged, portsAppeared: &portsAppeared, departed: &departed)
            }
            let lost = state.processEvents.refusedCount + state.notificationEvents.refusedCount
            if lost > reportedLost {
                events.append(.notificationsLost(count: lost - reportedLost))
                reportedLost = lost
            }

            control.withLock { control in
                switch control.phase {
                case .running:
                    if state.serverLost.load(ordering: .acquiring) {
                        interrupt(&control, events: &events)
                    } else {
                        noteDeparted(departed, &control)
                        if !control.pending.isEmpty && (portsAppeared || HostClock.now() >= control.nextRetry) {
                            restorePending(&control)
                            control.nextRetry = HostClock.now() + retryInterval
                        }
                        if linksChanged { rescanLinks(&control, events: &events) }
                        if let client = control.client { followLatency(client) }
                    }
                case .interrupted:
                    if HostClock.now() >= control.nextRetry { reopen(&control, events: &events) }
                case .stopped:
                    break
                }
            }
            deliver(events)
            usleep(5_000)
        }
    }

    private func translate(
        _ event: JACKRealtimeEvent, into events: inout [JACKEvent], linksChanged: inout Bool, portsAppeared: inout Bool,
        departed: inout [UInt32]
    ) {
        switch event {
        case .xrun:
            events.append(.xrun(total: state.xruns.load(ordering: .relaxed)))
        case .bufferSize(let frames):
            events.append(.bufferSizeChanged(frames: Int(frames)))
        case .sampleRate(let rate):
            events.append(.sampleRateChanged(Double(rate)))
        case .portConnect:
            linksChanged = true
        case .portRegistration(let id, let registered):
            portsAppeared = true
            // JACK does not always tell of the connections a departing port took along.
            linksChanged = true
            if !registered { departed.append(id) }
        case .freewheel(let on):
            events.append(.freewheelChanged(on))
        case .silenced(let reason, let frames):
            events.append(.outputSilenced(reason, frames: Int(frames)))
        case .resumed:
            events.append(.outputResumed)
        case .prepareFailed(let frames, let rate):
            let settings = BackendSettings(maximumFrames: Int(frames), sampleRate: Double(rate))
            events.append(.prepareFailed(settings, message: state.lastPrepareError.withLock { $0 }))
        case .midiDropped(let port, let output, let count):
            let names = output ? configuration.midiOutputPortNames : configuration.midiInputPortNames
            let name = Int(port) < names.count ? names[Int(port)] : "MIDI \(output ? "output" : "input") \(port + 1)"
            let client = info.withLock { $0.clientName }
            events.append(.midiEventsDropped(port: client.isEmpty ? name : client + ":" + name, output: output, count: Int(count)))
        }
    }

    /// Has JACK ask for the ports' latency ranges again when the graph's latency changed
    /// since they were last given.
    private func followLatency(_ client: OpaquePointer) {
        let latency = state.source.latencyFrames
        guard latency != state.publishedLatency.load(ordering: .relaxed) else { return }
        state.publishedLatency.store(latency, ordering: .relaxed)
        _ = jack_recompute_total_latencies(client)
    }

    /// The server went away: keep everything, remember the connections, let the dead
    /// client go, and start waiting for the server.
    private func interrupt(_ control: inout ControlState, events: inout [JACKEvent]) {
        let reason = state.lossReason()
        if let client = control.client {
            JACKMessages.quietly { _ = jack_client_close(client) }
        }
        // Only now that the old client's threads are gone may a new loss be recorded.
        state.clearLoss()
        control.client = nil
        control.phase = .interrupted
        control.pending.formUnion(control.links)
        control.nextRetry = HostClock.now() + retryInterval
        info.withLock { $0.interruptions += 1 }
        publishInfo(control)
        events.append(.interruptionBegan(reason: reason))
    }

    /// Tries to open the client again; on success sets it up as before, restores the
    /// connections and posts the end of the interruption.
    private func reopen(_ control: inout ControlState, events: inout [JACKEvent]) {
        var status = jack_status_t(rawValue: 0)
        let opened = JACKMessages.quietly {
            trellis_jack_client_open(configuration.clientName, JackNoStartServer, &status, configuration.serverName)
        }
        guard let client = opened else {
            control.nextRetry = HostClock.now() + retryInterval
            return
        }
        let previousFrames = state.bufferFrames.load(ordering: .relaxed)
        let previousRate = state.sampleRate.load(ordering: .relaxed)
        do throws(JACKError) {
            try setUp(client)
        } catch {
            JACKMessages.quietly { _ = jack_client_close(client) }
            events.append(.warning(.reconnectFailed(reason: error.description)))
            control.nextRetry = HostClock.now() + retryInterval
            return
        }
        // The server may come back with another rate or period; setUp prepared for it.
        let rate = state.sampleRate.load(ordering: .relaxed)
        if rate != previousRate { events.append(.sampleRateChanged(Double(rate))) }
        let frames = state.bufferFrames.load(ordering: .relaxed)
        if frames != previousFrames { events.append(.bufferSizeChanged(frames: frames)) }
        control.client = client
        control.phase = .running
        control.clientName = String(cString: jack_get_client_name(client))
        // Restored connections are not news; route changes report how the routes differ
        // from before the interruption.
        restorePending(&control)
        control.nextRetry = HostClock.now() + retryInterval
        rescanLinks(&control, events: &events)
        events.append(.interruptionEnded)
    }

    private var retryInterval: UInt64 {
        UInt64(max(10, configuration.reconnectIntervalMilliseconds)) * 1_000_000
    }
}
