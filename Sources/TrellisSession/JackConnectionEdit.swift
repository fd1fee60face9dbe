/// A JACK connection made or broken while the session ran, which a save writes into
/// `jack: connect:` so that the next load connects what the user left connected.
public struct JackConnectionEdit: Sendable, Equatable {
    /// This client's port (short name), or a whole-name pattern over them.
    public var port: String
    /// Another client's port (`client:port`), or a whole-name pattern.
    public var peer: String
    /// True when the link was made, false when it was broken.
    public var connected: Bool
    /// True when `port` receives (an input), so the rule reads `peer -> port`.
    public var portReceives: Bool

    public init(port: String, peer: String, connected: Bool, portReceives: Bool) {
        self.port = port
        self.peer = peer
        self.connected = connected
        self.portReceives = portReceives
    }
}

extension JackSpec {
    /// The rules after the run's `edits`, in order. A link made is added as a rule
    /// unless a written one already makes it; a link broken removes every rule that
    /// would make it again, and the other links a removed rule made (found in `live`,
    /// the client's links now) stay, as rules of their own. Rules that matched nothing
    /// (a client that was not running) are kept as written.
    public func applying(_ edits: [JackConnectionEdit], live: [JackConnectionEdit]) -> JackSpec {
        var spec = self
        for edit in edits {
            if edit.connected {
                if !spec.connect.contains(where: { $0.makes(port: edit.port, peer: edit.peer) }) {
                    spec.connect.append(JackConnectionSpec(edit, location: location))
                }
                continue
            }
            var kept: [JackConnectionSpec] = []
            var orphans: [JackConnectionSpec] = []
            for rule in spec.connect {
                guard rule.makes(port: edit.port, peer: edit.peer) else {
                    kept.append(rule)
                    continue
                }
                for link in live where link.port != edit.port || link.peer != edit.peer {
                    if rule.makes(port: link.port, peer: link.peer) { orphans.append(JackConnectionSpec(link, location: rule.location)) }
                }
            }
            for orphan in orphans where !kept.contains(where: { $0.makes(port: orphan.ours, peer: orphan.theirs) }) {
                kept.append(orphan)
            }
            spec.connect = kept
        }
        return spec
    }
}

extension JackConnectionSpec {
    init(_ edit: JackConnectionEdit, location: SourceLocation) {
        if edit.portReceives {
            self.init(from: edit.peer, to: edit.port, location: location)
        } else {
            self.init(from: edit.port, to: edit.peer, location: location)
        }
    }

    /// The side that names this client's ports: the one without a colon.
    public var ours: String { from.contains(":") ? to : from }
    /// The side that names other clients' ports (`client:port`).
    public var theirs: String { from.contains(":") ? from : to }

    /// Whether this rule links `port` (ours) with `peer`, exactly or by pattern.
    func makes(port: String, peer: String) -> Bool {
        PortNamePattern.matches(ours, port) && PortNamePattern.matches(theirs, peer)
    }
}
