import Foundation
import Glibc

/// A blocking client of the line protocol: what `trellis ctl` and the tests use.
///
/// Thread: one thread reads at a time; another may send meanwhile.
public final class ControlClient: @unchecked Sendable {
    public let endpoint: ControlEndpoint
    private var fd: Int32
    private var buffer: [UInt8] = []
    /// Event lines that arrived while waiting for replies, oldest first.
    public private(set) var events: [String] = []

    /// Connects; a Unix socket must be served by this user. With a secret (TCP), shows
    /// it before anything else and fails when the session refuses it.
    public init(endpoint: ControlEndpoint, secret: ControlSecret? = nil) throws(ControlSocketError) {
        self.endpoint = endpoint
        fd = try Sockets.connect(endpoint)
        if let secret {
            let reply = try request("auth \(secret.text)")
            guard reply.hasPrefix("ok") else { throw ControlSocketError(endpoint, "authenticate", reason: reply) }
        }
    }

    deinit { close() }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Tells the server no more commands come; replies still arrive.
    public func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

    /// Sends one line (a newline is added).
    public func send(_ line: String) throws(ControlSocketError) {
        try sendRaw(Array((line + "\n").utf8))
    }

    /// Sends bytes as they are: for tests of malformed input.
    public func sendRaw(_ bytes: [UInt8]) throws(ControlSocketError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ControlSocketError(endpoint, "send")
            }
            offset += written
        }
    }

    /// Sends what the socket takes without waiting; returns how many bytes went.
    public func sendAvailable(_ bytes: ArraySlice<UInt8>) -> Int {
        let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        return max(0, written)
    }

    /// The next line, without its newline; nil when the server closed the connection.
    public func readLine(timeout: Double = 10) throws(ControlSocketError) -> String? {
        let deadline = Date().addingTimeInterval(min(timeout, 1e9))
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            guard let chunk = try receive(until: deadline, timeout: timeout, doing: "read a reply") else { return nil }
            buffer.append(contentsOf: chunk)
        }
    }

    /// The next bytes as they come, those already read past the last line first; nil
    /// once the server closed the connection (for a `tap stream`'s audio).
    public func readBytes(timeout: Double = .greatestFiniteMagnitude) throws(ControlSocketError) -> [UInt8]? {
        if !buffer.isEmpty {
            defer { buffer.removeAll() }
            return buffer
        }
        return try receive(until: Date().addingTimeInterval(min(timeout, 1e9)), timeout: timeout, doing: "read")
    }

    /// What one `recv` brings, waiting for it until `deadline`; nil when the server
    /// closed the connection.
    private func receive(until deadline: Date, timeout: Double, doing action: String) throws(ControlSocketError) -> [UInt8]? {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw ControlSocketError(endpoint, action, reason: "nothing came within \(timeout) s") }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { throw ControlSocketError(endpoint, "wait to \(action)") }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return nil }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ControlSocketError(endpoint, "read")
            }
            return Array(chunk[0..<count])
        }
    }

    /// Whether a line from the server is an event rather than a reply (text or JSON).
    public static func isEvent(_ line: String) -> Bool {
        line.hasPrefix("event ") || line.hasPrefix("{") && line.contains("\"event\":")
    }

    /// The next line that is not an event (events are kept in `events`); nil at end.
    public func readReply(timeout: Double = 10) throws(ControlSocketError) -> String? {
        while let line = try readLine(timeout: timeout) {
            if Self.isEvent(line) {
                events.append(line)
                continue
            }
            return line
        }
        return nil
    }

    /// Sends a command and returns its reply line.
    public func request(_ line: String, timeout: Double = 10) throws(ControlSocketError) -> String {
        try send(line)
        guard let reply = try readReply(timeout: timeout) else {
            throw ControlSocketError(endpoint, "read a reply", reason: "the server closed the connection")
        }
        return reply
    }

    /// Takes the events received so far.
    public func takeEvents() -> [String] {
        defer { events = [] }
        return events
    }
}
