import Foundation
import Glibc

/// Tells systemd how a `Type=notify` service is doing, on the `NOTIFY_SOCKET` datagram
/// protocol (sd_notify(3)): `READY=1`, `STATUS=...`, `WATCHDOG=1`, `STOPPING=1`, one
/// datagram of newline-separated assignments each. Without `NOTIFY_SOCKET` (not run by
/// systemd) every call does nothing.
///
/// Thread: any; a datagram is sent whole or not at all, and never waits.
final class ServiceNotifier: @unchecked Sendable {
    private let socket: Int32
    private let address: sockaddr_un?
    private let addressLength: socklen_t

    /// Reads `NOTIFY_SOCKET` from `environment`. `run` ticks twice a second, often
    /// enough for any `WatchdogSec=` of a second or more.
    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let path = environment["NOTIFY_SOCKET"], let (address, length) = Self.address(path) else {
            socket = -1
            self.address = nil
            addressLength = 0
            return
        }
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.address = address
        addressLength = length
    }

    deinit {
        if socket >= 0 { close(socket) }
    }

    var isActive: Bool { socket >= 0 }

    /// The session runs: systemd may start what waits for it.
    func ready(status: String) { send("READY=1\nSTATUS=\(status)") }

    /// One line systemd shows in `systemctl status`.
    func status(_ text: String) { send("STATUS=\(text)") }

    /// The service is alive; only sent while the engine's cycles advance.
    func watchdog() { send("WATCHDOG=1") }

    /// The service is shutting down on purpose.
    func stopping() { send("STOPPING=1\nSTATUS=stopping") }

    private func send(_ text: String) {
        guard socket >= 0, var address else { return }
        _ = text.utf8CString.withUnsafeBufferPointer { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(socket, bytes.baseAddress, bytes.count - 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), $0, addressLength)
                }
            }
        }
    }

    /// A path, or an abstract name written `@name`.
    private static func address(_ path: String) -> (sockaddr_un, socklen_t)? {
        var bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes[0] == UInt8(ascii: "/") || bytes[0] == UInt8(ascii: "@") else { return nil }
        let abstract = bytes[0] == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            if !abstract { raw[bytes.count] = 0 }
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1)
        return (address, socklen_t(length))
    }
}
