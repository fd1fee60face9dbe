import CJack
import Glibc
import TrellisCore

extension JACKHeadNode {
    /// Connects our ports to the server's as `rule` says. A connection that cannot be made
    /// is returned (and posted) as a warning, not thrown. Thread: control.
    @discardableResult
    public func connect(_ rule: JACKConnectionRule) throws(JACKError) -> [JACKWarning] {
        var events: [JACKEvent] = []
        let running = control.withLock { control in
            guard control.client != nil else { return false }
            apply(rule, &control, events: &events)
            rescanLinks(&control, events: &events)
            return true
        }
        guard running else { throw .notRunning(client: configuration.clientName) }
        post(events)
        return events.compactMap { if case .warning(let warning) = $0 { warning } else { nil } }
    }

    /// Breaks the connection between our port `port` (short name) and `peer` (full name).
    /// Thread: control.
    @discardableResult
    public func disconnect(port: String, from peer: String) throws(JACKError) -> [JACKWarning] {
        var events: [JACKEvent] = []
        let running = control.withLock { control in
            guard let client = control.client else { return false }
            let ours = "\(control.clientName):\(port)"
            let isOutput = configuration.outputPortNames.contains(port)
            let code = isOutput ? jack_disconnect(client, ours, peer) : jack_disconnect(client, peer, ours)
            if code != 0 {
                events.append(.warning(.disconnectionFailed(from: ours, to: peer, code: code)))
            }
            control.pending.remove(PortLink(port: port, peer: peer))
            // The server's port lists may show the link until its next cycle: one broken
            // here is gone now, whatever they say.
            rescanLinks(&control, events: &events, broken: code == 0 ? [PortLink(port: port, peer: peer)] : [])
            // Broken on purpose: not made again when the peer comes back.
            control.vanished[PortLink(port: port, peer: peer)] = nil
            return true
        }
        guard running else { throw .notRunning(client: configuration.clientName) }
        post(events)
        return events.compactMap { if case .warning(let warning) = $0 { warning } else { nil } }
    }

    /// Makes the connections the configuration asks for: physical ports, then rules.
    func connectConfigured(_ control: inout ControlState, events: inout [JACKEvent]) {
        if configuration.connectPhysicalPorts {
            for kind in JACKPortKind.all {
                let ours = ports(of: kind)
                let flags = kind.peerFlag.rawValue | JackPortIsPhysical.rawValue
                let peers = portNames(control.client, pattern: nil, type: kind.type, flags: UInt(flags))
                for (port, peer) in zip(ours, peers) {
                    link(port, kind: kind, peer: peer, &control, events: &events)
                }
            }
        }
        for rule in configuration.connections {
            apply(rule, &control, events: &events)
        }
    }

    /// Tries every remembered connection whose peer exists now. One that fails (its
    /// client may not be active yet) stays pending and is tried again later, quietly.
    func restorePending(_ control: inout ControlState) {
        guard let client = control.client else { return }
        for pending in control.pending where jack_port_by_name(client, pending.peer) != nil {
            guard let kind = kind(ofPort: pending.port) else {
                control.pending.remove(pending)
                continue
            }
            let code = connect(pending.port, kind: kind, peer: pending.peer, client: client, clientName: control.clientName)
            if code == 0 || code == EEXIST { control.pending.remove(pending) }
        }
    }

    /// A port of another client went away, and our connections to it with it: they
    /// are made again when a port of that name returns (its client restarted, a
    /// NetJACK2 master came back), also those JACK reported gone a moment before the
    /// port. A connection someone broke on purpose through the session is not among
    /// them. The slot of a port just unregistered still names it.
    func noteDeparted(_ ids: [UInt32], _ control: inout ControlState) {
        guard let client = control.client, !ids.isEmpty else { return }
        let now = HostClock.now()
        let candidates = control.links.union(control.vanished.filter { now &- $0.value < Self.vanishedMemory }.keys)
        for id in ids {
            guard let port = jack_port_by_id(client, id), let text = jack_port_name(port) else { continue }
            let name = String(cString: text)
            for link in candidates where link.peer == name { control.pending.insert(link) }
        }
    }

    /// Reads our ports' connections from the server and reports the difference from what
    /// was known as route changes.
    func rescanLinks(_ control: inout ControlState, events: inout [JACKEvent], broken: Set<PortLink> = []) {
        guard let client = control.client else { return }
        var current: Set<PortLink> = []
        for kind in JACKPortKind.all {
            for (index, port) in ports(of: kind).enumerated() {
                guard let handle = handle(kind, index), let list = jack_port_get_all_connections(client, handle) else {
                    continue
                }
                var entry = 0
                while let name = list[entry] {
                    current.insert(PortLink(port: port, peer: String(cString: name)))
                    entry += 1
                }
                jack_free(list)
            }
        }
        current.subtract(broken)
        let name = control.clientName, now = HostClock.now()
        control.vanished = control.vanished.filter { now &- $0.value < Self.vanishedMemory }
        for gone in control.links.subtracting(current).sorted(by: Self.order) {
            events.append(.routeChanged(JACKRouteChange(port: "\(name):\(gone.port)", peer: gone.peer, connected: false)))
            control.vanished[gone] = now
        }
        for added in current.subtracting(control.links).sorted(by: Self.order) {
            events.append(.routeChanged(JACKRouteChange(port: "\(name):\(added.port)", peer: added.peer, connected: true)))
        }
        control.links = current
        publishInfo(control)
    }

    private static func order(_ a: PortLink, _ b: PortLink) -> Bool { (a.port, a.peer) < (b.port, b.peer) }

    /// How long (ns) a connection that went away is remembered for its port's departure.
    private static let vanishedMemory: UInt64 = 2_000_000_000

    private func apply(_ rule: JACKConnectionRule, _ control: inout ControlState, events: inout [JACKEvent]) {
        let pattern: PortPattern
        do {
            pattern = try PortPattern(rule.ports)
        } catch {
            events.append(.warning(.invalidPattern(rule.ports, reason: error.description)))
            return
        }
        var matchedAny = false
        for kind in JACKPortKind.all {
            let all = ports(of: kind)
            let ours = all.contains(rule.ports) ? [rule.ports] : all.filter { pattern.matches($0) }
            guard !ours.isEmpty else { continue }
            matchedAny = true
            let peers = resolvePeers(rule.peers, kind: kind, client: control.client)
            if peers.isEmpty {
                events.append(.warning(.noMatchingPorts(pattern: rule.peers, side: "peer")))
                continue
            }
            if ours.count == 1 {
                for peer in peers { link(ours[0], kind: kind, peer: peer, &control, events: &events) }
            } else {
                for (port, peer) in zip(ours, peers) { link(port, kind: kind, peer: peer, &control, events: &events) }
            }
        }
        if !matchedAny {
            events.append(.warning(.noMatchingPorts(pattern: rule.ports, side: "\(control.clientName)")))
        }
    }

    /// Peers by exact name, else by whole-name pattern, of the type and direction that fit `kind`.
    private func resolvePeers(_ text: String, kind: JACKPortKind, client: OpaquePointer?) -> [String] {
        if let port = jack_port_by_name(client, text) {
            let flags = jack_port_flags(port)
            let type = String(cString: jack_port_type(port))
            return (flags & Int32(kind.peerFlag.rawValue)) != 0 && type == kind.type ? [text] : []
        }
        return portNames(client, pattern: PortPattern.anchored(text), type: kind.type, flags: UInt(kind.peerFlag.rawValue))
    }

    private func portNames(_ client: OpaquePointer?, pattern: String?, type: String, flags: UInt) -> [String] {
        guard let list = jack_get_ports(client, pattern, type, flags) else { return [] }
        defer { jack_free(list) }
        var names: [String] = []
        var entry = 0
        while let name = list[entry] {
            names.append(String(cString: name))
            entry += 1
        }
        return names
    }

    /// Connects one port of ours to a peer; EEXIST counts as success.
    private func link(_ port: String, kind: JACKPortKind, peer: String, _ control: inout ControlState, events: inout [JACKEvent]) {
        guard let client = control.client else { return }
        let code = connect(port, kind: kind, peer: peer, client: client, clientName: control.clientName)
        if code != 0 && code != EEXIST {
            let ours = "\(control.clientName):\(port)"
            let (source, destination) = kind.sends ? (ours, peer) : (peer, ours)
            events.append(.warning(.connectionFailed(from: source, to: destination, code: code)))
        }
    }

    private func connect(_ port: String, kind: JACKPortKind, peer: String, client: OpaquePointer, clientName: String) -> Int32 {
        let ours = "\(clientName):\(port)"
        return kind.sends ? jack_connect(client, ours, peer) : jack_connect(client, peer, ours)
    }

    func ports(of kind: JACKPortKind) -> [String] {
        switch kind {
        case .audioInput: configuration.inputPortNames
        case .audioOutput: configuration.outputPortNames
        case .midiInput: configuration.midiInputPortNames
        case .midiOutput: configuration.midiOutputPortNames
        }
    }

    private func kind(ofPort port: String) -> JACKPortKind? {
        for kind in JACKPortKind.all where ports(of: kind).contains(port) {
            return kind
        }
        return nil
    }

    private func handle(_ kind: JACKPortKind, _ index: Int) -> OpaquePointer? {
        switch kind {
        case .audioInput: state.inputPorts[index]
        case .audioOutput: state.outputPorts[index]
        case .midiInput: state.midiPorts[index]
        case .midiOutput: state.midiOutputPorts[index]
        }
    }
}
