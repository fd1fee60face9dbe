/// Everything `trellis run` serves for one session: the line protocol on a Unix socket
/// (and on TCP on 127.0.0.1 when asked), and OSC on UDP when asked, all through one
/// dispatcher.
///
/// Thread: control.
public final class ControlServer: @unchecked Sendable {
    public let dispatcher: ControlDispatcher
    public let lineServers: [LineServer]
    public let osc: OSCServer?

    /// `socketPath` nil serves no socket; `tcpPort` and `oscPort` nil serve no TCP or
    /// OSC (0 lets the system choose a port; read it from `endpoints`/`osc`).
    public init(target: any ControlTarget, socketPath: String?, tcpPort: Int? = nil, oscPort: Int? = nil) throws(ControlSocketError) {
        let dispatcher = ControlDispatcher(target: target)
        self.dispatcher = dispatcher
        var servers: [LineServer] = []
        if let socketPath { servers.append(try LineServer(endpoint: .unix(path: socketPath), dispatcher: dispatcher)) }
        if let tcpPort { servers.append(try LineServer(endpoint: .tcp(port: tcpPort), dispatcher: dispatcher)) }
        lineServers = servers
        if let oscPort { osc = try OSCServer(port: oscPort, dispatcher: dispatcher) } else { osc = nil }
    }

    /// Where clients reach the line protocol.
    public var endpoints: [ControlEndpoint] { lineServers.map(\.endpoint) }

    public func start() {
        for server in lineServers { server.start() }
        osc?.start()
    }

    public func stop() {
        osc?.stop()
        for server in lineServers { server.stop() }
        dispatcher.shutdown()
    }
}
