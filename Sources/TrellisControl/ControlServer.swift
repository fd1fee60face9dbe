import Glibc

/// Everything `trellis run` serves for one session: the line protocol on a Unix socket
/// (and on TCP on 127.0.0.1 when asked), and OSC on UDP when asked, all through one
/// dispatcher. TCP and OSC are guarded by a new secret, written to `secretPath` for the
/// user's `trellis ctl` and removed on `stop()`.
///
/// Thread: control.
public final class ControlServer: @unchecked Sendable {
    public let dispatcher: ControlDispatcher
    public let lineServers: [LineServer]
    public let osc: OSCServer?
    /// What TCP and OSC clients must show; nil when neither is served.
    public let secret: ControlSecret?
    /// Where the secret is written: beside the socket unless named.
    public let secretPath: String?

    /// `socketPath` nil serves no socket; `tcpPort` and `oscPort` nil serve no TCP or
    /// OSC (0 lets the system choose a port; read it from `endpoints`/`osc`). With TCP or
    /// OSC, `secretPath` (default: beside the socket) must be given one way or the other.
    /// `fileTimeout`: seconds a load, save or player's file may take (`ControlDispatcher`).
    public init(
        target: any ControlTarget, socketPath: String?, tcpPort: Int? = nil, oscPort: Int? = nil, secretPath: String? = nil,
        fileTimeout: Double = 10, web: Bool = false
    ) throws(ControlSocketError) {
        let dispatcher = ControlDispatcher(target: target, fileTimeout: fileTimeout)
        self.dispatcher = dispatcher
        let networked = tcpPort != nil || oscPort != nil || web
        let secretPath = secretPath ?? socketPath.map(ControlSecretFile.path(besideSocket:))
        if tcpPort != nil || oscPort != nil, secretPath == nil {
            throw ControlSocketError(.tcp(port: tcpPort ?? oscPort ?? 0), "listen", reason: "TCP and OSC need a place for their secret file")
        }
        let secret = networked ? ControlSecret.random() : nil
        var servers: [LineServer] = []
        if let socketPath { servers.append(try LineServer(endpoint: .unix(path: socketPath), dispatcher: dispatcher)) }
        if let tcpPort { servers.append(try LineServer(endpoint: .tcp(port: tcpPort), dispatcher: dispatcher, secret: secret)) }
        lineServers = servers
        if let oscPort, let secret { osc = try OSCServer(port: oscPort, dispatcher: dispatcher, secret: secret) } else { osc = nil }
        self.secret = secret
        self.secretPath = networked ? secretPath : nil
        if let secret, let secretPath {
            try Sockets.preparePrivateFolder(of: secretPath)
            let tcp = servers.first { !$0.endpoint.isUnix }.flatMap { server -> Int? in
                if case .tcp(let port) = server.endpoint { port } else { nil }
            }
            secretFile = ControlSecretFile(secret: secret, tcpPort: tcp, oscPort: osc?.port)
            try secretFile?.write(to: secretPath)
        }
    }

    /// What the secret file says; the web desk's address joins it once it listens.
    private var secretFile: ControlSecretFile?

    /// Writes the web desk's address into the secret file, for `trellis ctl NAME web`.
    /// Thread: control.
    public func publishWebURL(_ url: String) throws(ControlSocketError) {
        guard var file = secretFile, let secretPath else { return }
        file.webURL = url
        secretFile = file
        try file.write(to: secretPath)
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
        if let secretPath { unlink(secretPath) }
    }
}
