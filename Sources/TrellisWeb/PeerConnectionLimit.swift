import NIOCore
import Synchronization

/// Connections from one address of another machine, counted while they are open: past
/// `limit`, a new one is closed as it is accepted, so one remote host cannot take every
/// connection the desk serves. Loopback peers are not counted: on this machine every
/// client shares one address, and the session's own user always has its Unix socket.
/// Thread: any (the channels' event loops).
final class PeerConnectionLimit: Sendable {
    let limit: Int
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int) { self.limit = limit }

    /// Counts `channel` against its peer's address until it closes; false (and nothing
    /// counted) when that address already has `limit` open.
    func admit(_ channel: any Channel) -> Bool {
        guard let address = channel.remoteAddress?.ipAddress, !Self.isLoopback(address) else { return true }
        let admitted = open.withLock { open in
            guard open[address, default: 0] < limit else { return false }
            open[address, default: 0] += 1
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { [self] _ in
                open.withLock { open in
                    open[address, default: 1] -= 1
                    if open[address] == 0 { open[address] = nil }
                }
            }
        }
        return admitted
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}

/// The desk refused a connection: its address has as many open as it may.
struct PeerLimitReached: Error {}
