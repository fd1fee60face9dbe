import Foundation
import Glibc
import Synchronization
import TrellisCore

/// Serves the line protocol on one endpoint: one thread polls every connection, the
/// dispatcher's queue runs the commands, and each connection has its own bounded
/// outbox. A client that does not read stops being read from once its outbox is full
/// (its own commands wait; nobody else's do) and loses events past the bound; it
/// never blocks the dispatcher, the audio or the other clients.
///
/// Who may send commands: on a Unix socket, only a process of the session's own user
/// (the kernel's SO_PEERCRED, checked at accept, beside the file's mode); on TCP, only a
/// client whose first line is `auth SECRET` with the session's secret. Anyone else gets
/// one `error AUTH` line and is disconnected before any command runs.
///
/// Thread: control for `start`/`stop`.
public final class LineServer: @unchecked Sendable {
    public struct Limits: Sendable {
        /// A longer line is answered with LINE_TOO_LONG and skipped.
        public var lineBytes = 64 * 1024
        /// Past this many unsent bytes the connection is not read from.
        public var outboxBytes = 256 * 1024
        /// Past this many unsent bytes events for the connection are dropped.
        public var eventBytes = 128 * 1024
        /// Lines of one connection waiting in the dispatcher at most.
        public var inflightLines = 32
        /// A TCP client that has not shown the secret by then is disconnected.
        public var authenticationSeconds = 5.0
        /// TCP clients waiting to authenticate, in all and from one address, at most:
        /// past that, new ones are refused (those that authenticated are not counted).
        public var unauthenticated = 64
        public var unauthenticatedPerAddress = 16

        public init() {}
    }

    public let dispatcher: ControlDispatcher
    /// Where it listens (for TCP, with the port actually bound).
    public let endpoint: ControlEndpoint
    public let limits: Limits
    /// What a TCP client must show first; nil for a Unix socket.
    private let secret: ControlSecret?
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var connections: [Int32: LineConnection] = [:]
    private var nextClient = 1
    /// While the process is out of descriptors, `accept` is not tried again before this
    /// (`HostClock`): a listener that stays readable must not spin the loop.
    private var acceptPausedUntil: UInt64 = 0

    /// Listens at once; serves from `start()`. TCP needs the secret its clients must
    /// show. Thread: control.
    public init(endpoint: ControlEndpoint, dispatcher: ControlDispatcher, secret: ControlSecret? = nil, limits: Limits = Limits())
        throws(ControlSocketError)
    {
        if case .tcp = endpoint, secret == nil {
            throw ControlSocketError(endpoint, "listen", reason: "TCP is served only with a secret its clients must show")
        }
        let (fd, port) = try Sockets.listen(endpoint)
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            throw ControlSocketError(endpoint, "make a wake-up pipe")
        }
        for end in pipeEnds { Sockets.setNonBlocking(end) }
        listener = fd
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        if case .tcp = endpoint, let port { self.endpoint = .tcp(port: port) } else { self.endpoint = endpoint }
        self.dispatcher = dispatcher
        self.limits = limits
        self.secret = secret
    }

    deinit {
        stop()
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Thread: control.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "trellis control \(endpoint)"
        thread.start()
    }

    /// Closes every connection and stops listening; a Unix socket's file is removed.
    /// Thread: control.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        wake()
        finished.wait()
        for connection in connections.values { drop(connection) }
        connections = [:]
        if case .unix(let path) = endpoint { unlink(path) }
    }

    /// How many clients are connected now. Thread: any (a snapshot).
    public var connectionCount: Int { connectionTotal.load(ordering: .relaxed) }
    private let connectionTotal = Atomic<Int>(0)

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func loop() {
        var fds: [pollfd] = []
        var order: [LineConnection] = []
        while running.load(ordering: .acquiring) {
            fds.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            let now = HostClock.now()
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: listener, events: now < acceptPausedUntil ? 0 : Int16(POLLIN), revents: 0))
            dropUnauthenticated(before: now)
            for connection in connections.values {
                if connection.lingerDeadline != nil {
                    fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0))
                    order.append(connection)
                    continue
                }
                // Lines held back while the connection had its share in the dispatcher.
                if connection.input.newline() != nil { submitLines(connection) }
                let (pending, inflight, closing) = connection.outbox.withLock { ($0.pending, $0.inflight, $0.closeAfterFlush) }
                var events: Int16 = 0
                // Held lines go first: nothing more is read until they are in the dispatcher
                // (a reply may have lowered `inflight` since they were held).
                let holdsLines = connection.input.newline() != nil
                if !connection.inputClosed && !closing && !holdsLines && inflight < limits.inflightLines && pending < limits.outboxBytes {
                    events |= Int16(POLLIN)
                }
                if pending > 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
                order.append(connection)
            }
            let ready = poll(&fds, nfds_t(fds.count), now < acceptPausedUntil ? 100 : 1000)
            if ready < 0 && errno != EINTR { break }
            if fds[0].revents != 0 { drainWake() }
            if fds[1].revents & Int16(POLLIN) != 0 { acceptClients() }
            for (index, connection) in order.enumerated() {
                let revents = fds[index + 2].revents
                let asked = fds[index + 2].events
                if let deadline = connection.lingerDeadline {
                    let gone = revents != 0 ? !discardInput(connection) : HostClock.now() > deadline
                    if gone {
                        drop(connection)
                        connections[connection.fd] = nil
                    }
                    continue
                }
                var alive = true
                if revents & Int16(POLLIN) != 0 || (revents & Int16(POLLHUP) != 0 && asked & Int16(POLLIN) != 0) {
                    alive = read(connection)
                }
                if alive && revents & Int16(POLLOUT) != 0 { alive = connection.flush() }
                if alive && revents & Int16(POLLERR | POLLNVAL) != 0 { alive = false }
                if alive && revents & Int16(POLLHUP) != 0 && asked & Int16(POLLIN) == 0 { alive = false }
                if alive {
                    let (pending, inflight, closing) = connection.outbox.withLock { ($0.pending, $0.inflight, $0.closeAfterFlush) }
                    let held = connection.input.newline() != nil
                    // A stream goes on after its client stops sending, until it closes.
                    let ended = closing || (connection.inputClosed && !connection.peer.isStreaming)
                    if pending == 0 && inflight == 0 && !held && ended {
                        if closing { linger(connection) } else { alive = false }
                    }
                }
                if !alive {
                    drop(connection)
                    connections[connection.fd] = nil
                }
            }
            connectionTotal.store(connections.count, ordering: .relaxed)
        }
    }

    /// Closes the server's side of a connection it ends (a refused `auth`, `bye`) and
    /// reads away what the client still sends, until it closes too or a second passes.
    /// Closing a socket with unread input makes the kernel answer with a reset, which
    /// destroys the reply the client has not read yet (the lingering close of HTTP
    /// servers). Thread: the loop.
    private func linger(_ connection: LineConnection) {
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.lingerDeadline = HostClock.now() + 1_000_000_000
    }

    /// Reads and drops what a lingering client sent; false once it closed or failed.
    private func discardInput(_ connection: LineConnection) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(connection.fd, &scratch, scratch.count)
        return count > 0 || (count < 0 && (errno == EAGAIN || errno == EINTR))
    }

    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while Glibc.read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    private func acceptClients() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                if errno == EMFILE || errno == ENFILE { acceptPausedUntil = HostClock.now() + 100_000_000 }
                return
            }
            Sockets.setNonBlocking(fd)
            if endpoint.isUnix, let refusal = Self.refusal(ofPeer: fd) {
                refuse(fd, refusal)
                continue
            }
            let address = secret == nil ? nil : Sockets.peerAddress(fd)
            if secret != nil {
                let waiting = connections.values.filter { !$0.authenticated && !$0.inputClosed && $0.lingerDeadline == nil }
                if waiting.count >= limits.unauthenticated || waiting.filter({ $0.peerAddress == address }).count >= limits.unauthenticatedPerAddress {
                    refuse(fd, ControlError(.auth, "too many connections are waiting to authenticate; try again later"))
                    continue
                }
            }
            let connection = LineConnection(
                fd: fd, name: "client \(nextClient)", authenticated: secret == nil, eventLimit: limits.eventBytes
            ) { [weak self] in self?.wake() }
            connection.peerAddress = address
            nextClient += 1
            connections[fd] = connection
        }
    }

    /// Answers one error line and closes: the socket's reply buffer is empty, so one
    /// short line always fits.
    private func refuse(_ fd: Int32, _ error: ControlError) {
        let line = Array("error \(error)\n".utf8)
        _ = send(fd, line, line.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        close(fd)
    }

    /// Lets go of TCP clients that have not authenticated within the limit.
    private func dropUnauthenticated(before now: UInt64) {
        let limit = UInt64(limits.authenticationSeconds * 1e9)
        for connection in connections.values
        where !connection.authenticated && !connection.inputClosed && connection.lingerDeadline == nil && now > connection.acceptedAt &+ limit {
            // Nothing of its is in flight (a line before `auth` closes it at once): the
            // error goes out directly, whatever the dispatcher is doing.
            let line = Array("error \(ControlError(.auth, "not authenticated within \(Int(limits.authenticationSeconds)) s; the connection is closed"))\n".utf8)
            _ = send(connection.fd, line, line.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            connection.inputClosed = true
            linger(connection)
        }
    }

    /// Why the process at the other end of a Unix socket may not control the session:
    /// it runs as another user. Nil when it is this session's user.
    static func refusal(ofPeer fd: Int32) -> ControlError? {
        guard let user = Sockets.peerUser(fd) else {
            return ControlError(.auth, "cannot tell which user connected (\(String(cString: strerror(errno))))")
        }
        guard user == geteuid() else {
            return ControlError(.auth, "this session serves only user \(geteuid()); the connection is closed")
        }
        return nil
    }

    /// Reads what is there and hands complete lines to the dispatcher as far as the
    /// connection's share allows. False when the socket failed.
    private func read(_ connection: LineConnection) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = Glibc.read(connection.fd, &buffer, buffer.count)
        if count == 0 {
            connection.inputClosed = true
            return true
        }
        if count < 0 { return errno == EAGAIN || errno == EINTR }
        var received = buffer[0..<count]
        if connection.discardingLongLine {
            // The rest of a line already answered LINE_TOO_LONG, up to its newline.
            guard let newline = received.newline() else { return true }
            connection.discardingLongLine = false
            received = received[(newline + 1)...]
        }
        connection.input.append(contentsOf: received)
        submitLines(connection)
        return true
    }

    /// Hands the connection's complete lines to the dispatcher while fewer than
    /// `inflightLines` of its lines wait there; the rest wait in its own buffer, which
    /// is not read further meanwhile. So a client that floods holds at most its share
    /// of the dispatcher's queue, and every other client's line waits behind at most
    /// that many of its lines. Thread: the loop.
    private func submitLines(_ connection: LineConnection) {
        var lineStart = 0
        while connection.outbox.withLock({ $0.inflight }) < limits.inflightLines,
              let newline = connection.input.newline(from: lineStart) {
            var line = connection.input[lineStart..<newline]
            if line.last == 13 { line = line.dropLast() }
            if line.count > limits.lineBytes {
                submit(reply: tooLong, to: connection)
            } else {
                submit(line, from: connection)
            }
            lineStart = newline + 1
        }
        connection.input.removeFirst(lineStart)
        if connection.input.count > limits.lineBytes, connection.input.newline() == nil {
            submit(reply: tooLong, to: connection)
            connection.discardingLongLine = true
            connection.input.removeAll(keepingCapacity: true)
        }
    }

    private var tooLong: ControlReply {
        .error(ControlError(.lineTooLong, "the line is longer than \(limits.lineBytes) bytes; it is skipped"))
    }

    private func submit(_ bytes: ArraySlice<UInt8>, from connection: LineConnection) {
        // After a refused `auth`, the rest of what the client sent is not read.
        if !connection.authenticated && connection.inputClosed { return }
        // A streaming connection carries audio only; what its client sends is dropped.
        if connection.peer.isStreaming { return }
        // Blank lines and `#` comments get no reply, so scripts may have them.
        if bytes.first == 35 || ((bytes.first == 32 || bytes.first == 9) && bytes.allSatisfy({ $0 == 32 || $0 == 9 })) || bytes.isEmpty { return }
        guard let line = String(validating: bytes, as: UTF8.self) else {
            submit(reply: .error(ControlError(.syntax, "the line is not UTF-8 text")), to: connection)
            return
        }
        if let reply = authenticate(line, connection) {
            submit(reply: reply, to: connection)
            return
        }
        connection.outbox.withLock { $0.inflight += 1 }
        let peer = connection.peer!
        dispatcher.handle(line: line, from: peer) { [weak self, weak connection] reply in
            connection?.reply(reply, close: peer.wantsToClose)
            peer.replyQueued()
            self?.wake()
        }
    }

    /// Answers `auth SECRET`, and anything a client sends before it has shown the
    /// secret (which also closes the connection); nil for a line the dispatcher runs.
    private func authenticate(_ line: String, _ connection: LineConnection) -> ControlReply? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let isAuth = words.first?.lowercased() == "auth"
        if connection.authenticated {
            guard isAuth else { return nil }
            return .ok(text: "authenticated", value: .object([("authenticated", .bool(true))]))
        }
        if isAuth, words.count == 2, let secret, secret.matches(words[1]) {
            connection.authenticated = true
            return .ok(text: "authenticated", value: .object([("authenticated", .bool(true))]))
        }
        connection.outbox.withLock { $0.closeAfterFlush = true }
        connection.inputClosed = true
        let reason = isAuth ? "the secret is wrong" : "the first line must be \"auth SECRET\" (the secret is in the session's .secret file; trellis ctl --tcp reads it)"
        return .error(ControlError(.auth, reason + "; the connection is closed"))
    }

    /// A reply made here (not by a command), kept in order with the replies in flight.
    private func submit(reply: ControlReply, to connection: LineConnection) {
        connection.outbox.withLock { $0.inflight += 1 }
        let peer = connection.peer!
        dispatcher.handle(reply: reply, to: peer) { [weak self, weak connection] line in
            connection?.reply(line, close: false)
            self?.wake()
        }
    }

    private func drop(_ connection: LineConnection) {
        connection.outbox.withLock { $0.closed = true }
        close(connection.fd)
        dispatcher.disconnect(connection.peer)
    }
}

extension Array where Element == UInt8 {
    /// The index of the first newline at or after `start` (memchr: a connection may hold
    /// a megabyte of pipelined lines, looked through on every pass of the loop).
    func newline(from start: Int = 0) -> Int? { start < count ? self[Swift.max(0, start)...].newline() : nil }
}

extension ArraySlice where Element == UInt8 {
    /// The index of the first newline.
    func newline() -> Int? {
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let found = memchr(base, 10, buffer.count) else { return nil }
            return startIndex + base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }
}
