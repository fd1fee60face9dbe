import Dispatch
import Glibc
import TrellisControl

/// The client end of a session manager's protocol: one UDP socket, from which the
/// announce and every later message go (the server tells its clients apart by their
/// source address), and on which only the server's own datagrams are heard: a datagram
/// from anyone else could otherwise open or save sessions in this user's name.
///
/// Thread: `send` from any; `start` and `stop` from one controlling thread. Messages are
/// handed to `handler` on `queue`, in order.
public final class NSMClient: @unchecked Sendable {
    public let server: NSMAddress
    private let destination: sockaddr_in
    private let fd: Int32
    private let source: DispatchSourceRead
    private var listening = false

    /// Binds a socket on an ephemeral port of the address the route to the server starts
    /// from (loopback for a manager on this machine), never every interface. `handler`
    /// gets each message from the server; `onIgnored` hears why one was not understood.
    public init(
        server: NSMAddress, queue: DispatchQueue,
        handler: @escaping @Sendable (NSMServerMessage) -> Void, onIgnored: @escaping @Sendable (NSMError) -> Void
    ) throws(NSMError) {
        let destination = try server.resolve()
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw NSMError("cannot make a UDP socket for the session manager: \(String(cString: strerror(errno)))") }
        var local: sockaddr_in
        do throws(NSMError) {
            local = try Self.localAddress(toward: destination, server: server)
        } catch {
            close(fd)
            throw error
        }
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw NSMError("cannot bind a UDP socket for the session manager: \(reason)")
        }
        self.server = server
        self.destination = destination
        self.fd = fd
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [fd, destination] in
            Self.drain(fd, from: destination, handler: handler, onIgnored: onIgnored)
        }
        source.setCancelHandler { close(fd) }
    }

    deinit { stop() }

    public func start() {
        guard !listening, !source.isCancelled else { return }
        listening = true
        source.resume()
    }

    /// Stops listening; the socket closes once the queue is done with it.
    public func stop() {
        guard !source.isCancelled else { return }
        // A source is resumed before it is cancelled, or its cancel handler never runs.
        if !listening { source.resume() }
        listening = true
        source.cancel()
    }

    /// Sends from the client's socket, without waiting; false when the datagram could
    /// not be sent now.
    @discardableResult
    public func send(_ message: NSMClientMessage) -> Bool {
        let bytes = message.osc.encoded()
        var address = destination
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, bytes, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return sent == bytes.count
    }

    private static func drain(
        _ fd: Int32, from server: sockaddr_in,
        handler: (NSMServerMessage) -> Void, onIgnored: (NSMError) -> Void
    ) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            var sender = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = withUnsafeMutablePointer(to: &sender) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
            }
            guard count > 0 else { return }
            guard isServer(sender, server) else { continue }
            let messages: [OSCMessage]
            do { messages = try OSCMessage.decode(Array(buffer[0..<count])) } catch {
                onIgnored(NSMError("the session manager sent a datagram that is not OSC: \(error.message)"))
                continue
            }
            for message in messages {
                do { handler(try NSMServerMessage(message)) } catch { onIgnored(error) }
            }
        }
    }

    /// The address this machine sends to `destination` from, port 0: a connected probe
    /// socket's own address, which the routing table chooses.
    private static func localAddress(toward destination: sockaddr_in, server: NSMAddress) throws(NSMError) -> sockaddr_in {
        let probe = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw NSMError("cannot make a UDP socket for the session manager: \(String(cString: strerror(errno)))") }
        defer { close(probe) }
        var target = destination, local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let named = connected == 0 && withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) }
        } == 0
        guard named else { throw NSMError("the session manager at \(server) cannot be reached: \(String(cString: strerror(errno)))") }
        local.sin_port = 0
        return local
    }

    /// The server's port, from its address or, when both are on this machine, from any
    /// loopback address (a host name may resolve to 127.0.1.1 while replies come from 127.0.0.1).
    private static func isServer(_ sender: sockaddr_in, _ server: sockaddr_in) -> Bool {
        guard sender.sin_port == server.sin_port else { return false }
        if sender.sin_addr.s_addr == server.sin_addr.s_addr { return true }
        let loopback = { (address: sockaddr_in) in UInt32(bigEndian: address.sin_addr.s_addr) >> 24 == 127 }
        return loopback(sender) && loopback(server)
    }
}
