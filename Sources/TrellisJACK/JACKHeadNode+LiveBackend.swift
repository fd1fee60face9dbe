import TrellisCore

/// The head node as the control side sees a live backend: status, notifications,
/// JACK's transport and port connections, in terms that do not name JACK.
extension JACKHeadNode: LiveBackend, PortConnecting {
    public func liveStatus(peek: Bool) -> LiveBackendStatus {
        let status = status(peek: peek)
        var refusal: String?
        if case .refused(let reason) = status.cpuLatency { refusal = reason }
        return LiveBackendStatus(
            phase: "\(status.phase)", clientName: status.clientName, sampleRate: status.sampleRate, period: status.bufferFrames,
            xrunCount: status.xrunCount, cycleCount: status.cycleCount, silencedCycleCount: status.silencedCycleCount,
            interruptionCount: status.interruptionCount, dspLoad: status.dspLoad,
            busyNanoseconds: status.busyNanoseconds, periodNanoseconds: status.periodNanoseconds,
            outputPeaksDecibels: status.outputPeaksDecibels, cpuLatency: status.cpuLatency.word, cpuLatencyRefusal: refusal)
    }

    public var channelCounts: (inputs: Int, outputs: Int) { (configuration.inputChannels, configuration.outputChannels) }

    /// Moves JACK's transport, every client's, when the configuration follows it.
    public func moveSharedTransport(_ command: TransportCommand) -> Bool {
        transportRole != .none && transport(command)
    }

    @discardableResult
    public func addLiveListener(_ listener: @escaping @Sendable (LiveBackendEvent) -> Void) -> Int {
        addListener { listener(LiveBackendEvent($0)) }
    }

    public func removeLiveListener(_ token: Int) { removeListener(token) }

    public var portConnections: (any PortConnecting)? { self }

    public var receivingPortNames: [String] { configuration.inputPortNames + configuration.midiInputPortNames }

    /// Connects as a `JACKConnectionRule` of `port` and `peer` does; a connection that
    /// could not be made is an error here, with every warning's words.
    public func makeConnection(port: String, peer: String) throws(PortConnectionError) {
        try refusingWarnings { () throws(JACKError) in try connect(JACKConnectionRule(ports: port, peers: peer)) }
    }

    public func breakConnection(port: String, peer: String) throws(PortConnectionError) {
        try refusingWarnings { () throws(JACKError) in try disconnect(port: port, from: peer) }
    }

    /// `attempt`'s error, or every warning it returned, as the connection's error.
    private func refusingWarnings(_ attempt: () throws(JACKError) -> [JACKWarning]) throws(PortConnectionError) {
        let warnings: [JACKWarning]
        do { warnings = try attempt() } catch { throw PortConnectionError(error.description) }
        if !warnings.isEmpty { throw PortConnectionError(warnings.map(\.description).joined(separator: "; ")) }
    }

    public func connections() -> [PortConnection] {
        status(peek: true).connections
    }
}

extension LiveBackendEvent {
    /// The shared words for a JACK notification.
    init(_ event: JACKEvent) {
        switch event {
        case .xrun(let total): self = .xrun(total: total)
        case .interruptionBegan(let reason): self = .interruptionBegan(reason: reason)
        case .interruptionEnded: self = .interruptionEnded
        case .routeChanged(let change): self = .route(port: change.port, peer: change.peer, connected: change.connected)
        case .midiEventsDropped(let port, let output, let count):
            self = .midiDropped(port: port, output: output, count: count, message: event.description)
        default: self = .other(event.description)
        }
    }
}
