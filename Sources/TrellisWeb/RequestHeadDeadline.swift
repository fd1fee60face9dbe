import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// Closes a connection whose request head does not arrive whole within `seconds` of its
/// first byte (or of the connection, for the first request): a client that sends its
/// headers slowly, or nothing at all, cannot hold one of the desk's connections. It
/// watches the raw bytes for the blank line that ends a head; the desk takes no request
/// bodies, so what follows a head is the next head. Once the server answers 101 the
/// connection carries WebSocket frames, which the WebSocket's own rules govern.
///
/// Thread: the channel's event loop.
final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let seconds: Int64
    private var timer: Scheduled<Void>?
    /// The last bytes seen, to find "\r\n\r\n" across reads.
    private var tail: UInt32 = 0
    private var inHead = true
    private var upgraded = false

    init(seconds: Int64) { self.seconds = seconds }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !upgraded {
            let buffer = unwrapInboundIn(data)
            for byte in buffer.readableBytesView {
                if !inHead {
                    inHead = true
                    arm(context)
                }
                tail = tail << 8 | UInt32(byte)
                if tail == 0x0D0A_0D0A {
                    inHead = false
                    timer?.cancel()
                    timer = nil
                }
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !upgraded {
            let buffer = unwrapOutboundIn(data)
            if buffer.readableBytesView.starts(with: Array("HTTP/1.1 101".utf8)) {
                upgraded = true
                timer?.cancel()
                timer = nil
            }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard timer == nil, !upgraded else { return }
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: .seconds(seconds)) { channel.close(promise: nil) }
    }
}

/// The desk's connections: HTTP/1.1 with the WebSocket upgrade, behind a request-head
/// deadline. Thread: SwiftNIO's event loops.
struct DeskChildChannel: ServerChildChannel {
    let inner: HTTP1WebSocketUpgradeChannel
    let headSeconds: Int64
    let peers: PeerConnectionLimit

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        guard peers.admit(channel) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(PeerLimitReached())
        }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RequestHeadDeadline(seconds: headSeconds), position: .first)
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
