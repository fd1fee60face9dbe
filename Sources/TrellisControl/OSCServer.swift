import Foundation
import Glibc
import Synchronization

/// The control vocabulary over OSC on UDP, bound to 127.0.0.1: `/trellis/set s:SECRET
/// s:node s:param f:value` runs `set node param value`. Each message is answered to its
/// sender with `/trellis/reply` (path, "ok", result) or (path, "error", code,
/// message); a sender that sent `/trellis/watch` gets `/trellis/event` (kind, text).
///
/// Every message carries the session's secret as its first argument: a datagram's
/// sender cannot be told apart from any other local user, and a source address proved
/// once could later be bound by someone else. A message without it runs nothing.
///
/// Thread: control for `start`/`stop`.
public final class OSCServer: @unchecked Sendable {
    public let dispatcher: ControlDispatcher
    /// The UDP port bound (the one asked for, or the system's choice for 0).
    public let port: Int
    private let fd: Int32
    private let secret: ControlSecret
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Peers by sender address; the loop thread adds, events read from other threads.
    private let peers = Mutex<[String: ControlPeer]>([:])

    public init(port: Int, dispatcher: ControlDispatcher, secret: ControlSecret) throws(ControlSocketError) {
        let endpoint = ControlEndpoint.tcp(port: port)
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlSocketError(endpoint, "create a UDP socket") }
        var address = Sockets.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let error = ControlSocketError(endpoint, "listen for OSC")
            close(fd)
            throw error
        }
        self.fd = fd
        self.port = Sockets.boundPort(fd) ?? port
        self.dispatcher = dispatcher
        self.secret = secret
    }

    deinit {
        stop()
        close(fd)
    }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "trellis osc \(port)"
        thread.start()
    }

    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
        for peer in peers.withLock({ Array($0.values) }) { dispatcher.disconnect(peer) }
    }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while running.load(ordering: .acquiring) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 200) > 0 else { continue }
            var source = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
            }
            guard count > 0 else { continue }
            handle(Array(buffer[0..<count]), from: source)
        }
    }

    private func handle(_ packet: [UInt8], from source: sockaddr_in) {
        let messages: [OSCMessage]
        do { messages = try OSCMessage.decode(packet) } catch {
            send(OSCMessage(path: "/trellis/reply", arguments: [.string(""), .string("error"), .string(error.code.rawValue), .string(error.message)]), to: source)
            return
        }
        for message in messages {
            let path = message.path
            let answer: @Sendable (ControlReply) -> Void = { [weak self] reply in
                var arguments: [OSCMessage.Argument] = [.string(path)]
                switch reply {
                case .ok(let text, _): arguments += [.string("ok"), .string(text)]
                case .error(let error): arguments += [.string("error"), .string(error.code.rawValue), .string(error.message)]
                }
                _ = self?.send(OSCMessage(path: "/trellis/reply", arguments: arguments), to: source)
            }
            guard case .string(let offered)? = message.arguments.first, secret.matches(offered) else {
                answer(.error(ControlError(.auth, "the first argument of every message must be the session's secret (a string, from its .secret file); nothing was run")))
                continue
            }
            let command = OSCMessage(path: path, arguments: Array(message.arguments.dropFirst()))
            do { dispatcher.perform(words: try command.words(), from: peer(for: source), reply: answer) } catch { answer(.error(error)) }
        }
    }

    private func peer(for source: sockaddr_in) -> ControlPeer {
        let key = "\(source.sin_addr.s_addr):\(source.sin_port)"
        return peers.withLock { peers in
            if let peer = peers[key] { return peer }
            if peers.count >= 256, let idle = peers.first(where: { $0.value.watch == nil }) { peers[idle.key] = nil }
            let peer = ControlPeer(name: "osc \(key)") { [weak self] line in
                guard let self else { return false }
                let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
                let kind = parts.count > 1 ? parts[1] : "", text = parts.count > 2 ? parts[2] : ""
                return self.send(OSCMessage(path: "/trellis/event", arguments: [.string(kind), .string(text)]), to: source)
            }
            peers[key] = peer
            return peer
        }
    }

    /// Sends without waiting; a datagram the socket cannot take now is dropped.
    @discardableResult
    private func send(_ message: OSCMessage, to destination: sockaddr_in) -> Bool {
        let bytes = message.encoded()
        var address = destination
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, bytes, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return sent == bytes.count
    }
}
