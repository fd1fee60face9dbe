import Foundation
import HummingbirdWebSocket
import NIOCore
import TrellisControl

/// One page's WebSocket: each text message is one JSON request for the dispatcher, each
/// reply and event one text message back. A writer task drains the client's outbox; a
/// page that takes nothing for `stalledSeconds`, sends a message over the size limit or
/// binary data, or falls so far behind that replies do not fit, is closed.
///
/// Thread: the page's tasks on SwiftNIO's event loops.
struct WebSession: Sendable {
    let client: WebClient
    let dispatcher: ControlDispatcher
    let channel: any Channel
    let stalledSeconds: Double
    let maximumMessageBytes: Int

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await write(to: outbound) }
            group.addTask { await watchForStall() }
            await read(from: inbound)
            client.close()
            dispatcher.disconnect(client.peer)
            group.cancelAll()
        }
    }

    private func read(from inbound: WebSocketInboundStream) async {
        do {
            for try await message in inbound.messages(maxSize: maximumMessageBytes) {
                guard case .text(let line) = message else {
                    channel.close(promise: nil)
                    return
                }
                await client.reserveRequest()
                dispatcher.handle(line: line, from: client.peer) { [client] reply in
                    client.reply(reply)
                    // After `bye`, the page is closed once its reply is sent.
                    if client.peer.wantsToClose { client.close() }
                }
                if client.overflowed { break }
            }
        } catch {
            // A frame over the limit, bad UTF-8 or a broken connection: the page is closed.
            channel.close(promise: nil)
        }
    }

    /// Sends what waits as few messages: the lines of one message are JSON lines joined
    /// by newlines (none is inside a line), up to 256 KiB a message. A meter frame comes
    /// as one entry, so thirty frames a second for fifty buses are thirty messages, not
    /// fifteen hundred.
    private func write(to outbound: WebSocketOutboundWriter) async {
        while let lines = await client.next() {
            var message = ""
            for line in lines {
                if !message.isEmpty && message.utf8.count + line.utf8.count >= 256 * 1024 {
                    guard await send(message, outbound) else { return }
                    message = ""
                }
                message += message.isEmpty ? line : "\n" + line
            }
            guard await send(message, outbound) else { return }
        }
        // The client ended (bye, overflow, a stall): what was queued has been sent.
        channel.close(promise: nil)
    }

    private func send(_ message: String, _ outbound: WebSocketOutboundWriter) async -> Bool {
        do {
            try await outbound.write(.text(message))
            return true
        } catch {
            client.close()
            return false
        }
    }

    /// Closes a page whose socket has taken nothing for `stalledSeconds` while lines wait.
    private func watchForStall() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if let waiting = client.waitingSince, Self.now() - waiting > stalledSeconds {
                client.close()
                channel.close(promise: nil)
                return
            }
        }
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
