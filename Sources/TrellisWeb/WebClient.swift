import NIOCore
import NIOWebSocket
import Synchronization
import TrellisControl

/// One page on the desk, as the dispatcher sees it: a peer in JSON mode, whose replies
/// and events wait in a bounded outbox until the page's WebSocket takes them. When a page
/// reads slowly, meter events are dropped first; when even replies and other events do
/// not fit, the page is closed, so a page that stops reading costs bounded memory and
/// never holds up the session. The shared meter feed's frames skip the outbox: each is
/// written straight to the page's socket, or dropped while the socket takes no more.
///
/// Thread: any.
final class WebClient: Sendable {
    struct Limits: Sendable {
        /// Bytes waiting for the page at most.
        var outboxBytes = 1 << 20
        /// Requests of one page waiting in the dispatcher at most.
        var inflight = 32
    }

    private struct Outbox {
        var lines: [(text: String, meter: Bool)] = []
        var bytes = 0
        var closed = false
        var overflowed = false
        var waiter: CheckedContinuation<[String]?, Never>?
        var inflight = 0
        var inflightWaiter: CheckedContinuation<Void, Never>?
        /// When lines began to wait with none taken since (seconds of uptime).
        var waitingSince: Double?
        /// When the socket stopped taking meter frames (seconds of uptime).
        var blockedSince: Double?
    }

    /// The outbox's lock, shared with the peer's delivery closure.
    private final class Shared: Sendable {
        let state = Mutex(Outbox())
    }

    let peer: ControlPeer
    let limits: Limits
    private let shared: Shared
    /// The page's WebSocket channel; nil where there is none (meter frames then go
    /// through the outbox).
    private let socket: (any Channel)?

    init(name: String, socket: (any Channel)? = nil, limits: Limits = Limits()) {
        self.limits = limits
        self.socket = socket
        let shared = Shared()
        self.shared = shared
        peer = ControlPeer(name: name, mode: .json) { line in
            Self.queue(line, meter: Self.isMeter(line), in: shared, limit: limits.outboxBytes)
        }
    }

    /// Whether a line is a meter event: `"event":"meter"` within its first bytes (after
    /// the id), found without Foundation.
    private static func isMeter(_ line: String) -> Bool {
        let needle = Array(#""event":"meter""#.utf8)
        let head = Array(line.utf8.prefix(160))
        guard head.count >= needle.count else { return false }
        return (0...(head.count - needle.count)).contains { start in head[start..<(start + needle.count)].elementsEqual(needle) }
    }

    /// Queues a line for the page; false when it was dropped.
    @discardableResult
    private static func queue(_ line: String, meter: Bool, in shared: Shared, limit: Int) -> Bool {
        let waiter: CheckedContinuation<[String]?, Never>?
        var lines: [String]? = nil
        let queued: Bool = shared.state.withLock { box in
            guard !box.closed else { return false }
            if box.bytes + line.utf8.count > limit {
                if meter { return false }
                // Make room by dropping meter frames; they are only ever the latest reading.
                box.lines.removeAll { entry in
                    guard entry.meter, box.bytes + line.utf8.count > limit else { return false }
                    box.bytes -= entry.text.utf8.count
                    return true
                }
                if box.bytes + line.utf8.count > limit {
                    box.overflowed = true
                    box.closed = true
                    return false
                }
            }
            if box.lines.isEmpty && box.waiter == nil { box.waitingSince = WebSession.now() }
            box.lines.append((line, meter))
            box.bytes += line.utf8.count
            return true
        }
        waiter = shared.state.withLock { box in
            guard let waiter = box.waiter, !box.lines.isEmpty || box.closed else { return nil }
            box.waiter = nil
            if !box.lines.isEmpty {
                lines = box.lines.map(\.text)
                box.lines = []
                box.bytes = 0
                box.waitingSince = nil
            }
            return waiter
        }
        waiter?.resume(returning: lines)
        return queued
    }

    /// A frame of the shared meter feed, for a page whose watch takes `meter` events:
    /// written straight to the page's socket, on its event loop, with no task between.
    /// While the socket holds more than it can send (the page reads slowly) frames are
    /// dropped, and a socket that takes none for a while is a stalled page. Thread: any.
    func sendMeterFrame(_ line: String) {
        guard peer.watches(.meter) else { return }
        guard let socket else {
            Self.queue(line, meter: true, in: shared, limit: limits.outboxBytes)
            return
        }
        let writable = socket.isWritable
        shared.state.withLock { box in box.blockedSince = writable ? nil : box.blockedSince ?? WebSession.now() }
        guard writable else { return }
        socket.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: socket.allocator.buffer(string: line)), promise: nil)
    }

    /// A reply to one of the page's requests. Thread: any.
    func reply(_ line: String) {
        Self.queue(line, meter: false, in: shared, limit: limits.outboxBytes)
        let waiter = shared.state.withLock { box -> CheckedContinuation<Void, Never>? in
            box.inflight -= 1
            guard let waiter = box.inflightWaiter else { return nil }
            // The request that waited takes the place just freed.
            box.inflightWaiter = nil
            box.inflight += 1
            return waiter
        }
        waiter?.resume()
    }

    /// What waits for the page, in order; nil once the client is closed. Thread: the
    /// page's writer task (one at a time).
    func next() async -> [String]? {
        await withCheckedContinuation { continuation in
            let ready: [String]?? = shared.state.withLock { box in
                if !box.lines.isEmpty {
                    let lines = box.lines.map(\.text)
                    box.lines = []
                    box.bytes = 0
                    box.waitingSince = nil
                    return .some(lines)
                }
                if box.closed { return .some(nil) }
                box.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Waits until the page may have one more request in the dispatcher, and counts it.
    /// Thread: the page's reader task.
    func reserveRequest() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = shared.state.withLock { box -> Bool in
                guard box.inflight >= limits.inflight, !box.closed else {
                    box.inflight += 1
                    return true
                }
                box.inflightWaiter = continuation
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    /// Since when lines have waited with the page's writer taking none, or its socket has
    /// taken no meter frame; nil when it keeps up.
    var waitingSince: Double? {
        shared.state.withLock { box in [box.waitingSince, box.blockedSince].compactMap { $0 }.min() }
    }

    /// True when the page fell so far behind that even replies did not fit.
    var overflowed: Bool { shared.state.withLock { $0.overflowed } }

    /// Ends the client: the writer's `next()` returns nil. Thread: any.
    func close() {
        let (waiter, inflightWaiter) = shared.state.withLock { box in
            box.closed = true
            defer {
                box.waiter = nil
                box.inflightWaiter = nil
            }
            return (box.waiter, box.inflightWaiter)
        }
        waiter?.resume(returning: nil)
        inflightWaiter?.resume()
    }
}
