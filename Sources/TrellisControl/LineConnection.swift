import Glibc
import Synchronization
import TrellisCore

/// One client of a `LineServer`. The server's loop thread owns the socket and the
/// input; replies and events reach the outbox from other threads, under a lock that
/// is only ever held to copy bytes.
final class LineConnection: @unchecked Sendable {
    struct Outbox {
        var bytes: [UInt8] = []
        var sent = 0
        /// Lines handed to the dispatcher and not answered yet.
        var inflight = 0
        var closeAfterFlush = false
        var closed = false

        var pending: Int { bytes.count - sent }
    }

    let fd: Int32
    let outbox = Mutex(Outbox())
    private(set) var peer: ControlPeer!
    // Loop thread only.
    var input: [UInt8] = []
    var discardingLongLine = false
    var inputClosed = false
    /// False until a TCP client shows the secret; a socket's peer is checked on accept.
    var authenticated: Bool
    /// When it was accepted (`HostClock`), and from where (a TCP client's IPv4 address):
    /// a client that does not authenticate in time, or one too many, is let go.
    let acceptedAt = HostClock.now()
    var peerAddress: UInt32?
    /// Set once the server closed its side (see `LineServer.linger`): until then, what
    /// the client still sends is read and dropped.
    var lingerDeadline: UInt64?

    /// Past this many unsent bytes a stream's audio is dropped (about 2.7 s of stereo
    /// float at 48 kHz), so a client that stops reading costs bounded memory.
    static let streamLimit = 1 << 20

    init(fd: Int32, name: String, authenticated: Bool, eventLimit: Int, wake: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.authenticated = authenticated
        let deliverBytes: @Sendable (UnsafeRawBufferPointer) -> Bool = { [weak self] bytes in
            guard let self else { return false }
            let queued = self.outbox.withLock { outbox in
                guard !outbox.closed, outbox.pending <= Self.streamLimit else { return false }
                outbox.bytes.append(contentsOf: bytes)
                return true
            }
            if queued { wake() }
            return queued
        }
        let finish: @Sendable () -> Void = { [weak self] in
            self?.outbox.withLock { $0.closeAfterFlush = true }
            wake()
        }
        peer = ControlPeer(name: name, takesFrames: true, deliverBytes: deliverBytes, finish: finish) { [weak self] line in
            guard let self else { return false }
            let queued = self.outbox.withLock { outbox in
                guard !outbox.closed, outbox.pending <= eventLimit else { return false }
                outbox.bytes.append(contentsOf: line.utf8)
                outbox.bytes.append(10)
                return true
            }
            if queued { wake() }
            return queued
        }
    }

    /// Queues a reply line. Thread: any.
    func reply(_ line: String, close: Bool) {
        outbox.withLock { outbox in
            outbox.inflight -= 1
            guard !outbox.closed else { return }
            outbox.bytes.append(contentsOf: line.utf8)
            outbox.bytes.append(10)
            if close { outbox.closeAfterFlush = true }
        }
    }

    /// Writes what the socket takes now. False when the socket failed. Thread: the loop.
    func flush() -> Bool {
        outbox.withLock { outbox in
            while outbox.pending > 0 {
                let written = outbox.bytes.withUnsafeBytes { raw in
                    send(fd, raw.baseAddress! + outbox.sent, outbox.pending, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                if written > 0 {
                    outbox.sent += written
                } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                    break
                } else {
                    return false
                }
            }
            if outbox.sent == outbox.bytes.count {
                outbox.bytes.removeAll(keepingCapacity: outbox.bytes.count < 1 << 20)
                outbox.sent = 0
            } else if outbox.sent > 1 << 16 {
                outbox.bytes.removeFirst(outbox.sent)
                outbox.sent = 0
            }
            return true
        }
    }
}
