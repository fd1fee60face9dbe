/// A backend whose ports other programs' ports connect to (JACK's; another server's
/// could). Our ports are asked for by short name, as a session names them (`in_1`);
/// peers, and what `connections` lists, in full, as the server names them
/// (`system:capture_1`).
public protocol PortConnecting: AnyObject, Sendable {
    /// Our ports that take audio or MIDI in, by short name.
    var receivingPortNames: [String] { get }
    /// Connects our ports matching `port` (a name or pattern) to the peers matching
    /// `peer`. Thread: control.
    func makeConnection(port: String, peer: String) throws(PortConnectionError)
    /// Breaks the connection between our port `port` and `peer`. Thread: control.
    func breakConnection(port: String, peer: String) throws(PortConnectionError)
    /// Our ports' connections now. Thread: control.
    func connections() -> [PortConnection]
}

/// One of our ports and a port it is connected to.
public struct PortConnection: Sendable, Hashable, CustomStringConvertible {
    /// Ours, by full name.
    public var port: String
    /// The other port, by full name.
    public var peer: String

    public init(port: String, peer: String) {
        self.port = port
        self.peer = peer
    }

    public var description: String { "\(port) <-> \(peer)" }
}

/// Why a connection was not made or broken, in words that name the ports.
public struct PortConnectionError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
