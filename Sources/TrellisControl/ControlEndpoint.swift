import Foundation
import Glibc

/// Where a control server listens and a client connects: a Unix domain socket by
/// path, or a TCP port on 127.0.0.1. Thread: any (a plain value).
public enum ControlEndpoint: Sendable, Hashable, CustomStringConvertible {
    case unix(path: String)
    case tcp(port: Int)

    public var description: String {
        switch self {
        case .unix(let path): path
        case .tcp(let port): "127.0.0.1:\(port)"
        }
    }

    /// `$XDG_RUNTIME_DIR/trellis/NAME.sock`, or `/tmp/trellis-UID/NAME.sock` without it.
    public static func defaultSocketPath(name: String) -> String {
        "\(runtimeDirectory)/\(name).sock"
    }

    /// The folder that holds the sessions' sockets and secrets; private to its user
    /// (`Sockets.preparePrivateFolder`).
    public static var runtimeDirectory: String {
        if let base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !base.isEmpty { return base + "/trellis" }
        return "/tmp/trellis-\(getuid())"
    }

    /// The secret file of the session `trellis ctl NAME` names: beside its socket.
    public static func secretPath(named name: String) -> String {
        guard case .unix(let socket) = named(name) else { return "" }
        return ControlSecretFile.path(besideSocket: socket)
    }

    /// What `trellis ctl NAME` means: a path when it holds a slash or ends in `.sock`,
    /// else a session name under the runtime folder.
    public static func named(_ name: String) -> ControlEndpoint {
        if name.contains("/") || name.hasSuffix(".sock") { return .unix(path: name) }
        return .unix(path: defaultSocketPath(name: name))
    }
}

/// A failure to listen, connect, read or write, naming the endpoint and the system's reason.
public struct ControlSocketError: Error, Sendable, CustomStringConvertible {
    public var endpoint: String
    public var action: String
    public var reason: String

    init(_ endpoint: ControlEndpoint, _ action: String, errno code: Int32 = errno) {
        self.endpoint = endpoint.description
        self.action = action
        reason = String(cString: strerror(code))
    }

    init(_ endpoint: ControlEndpoint, _ action: String, reason: String) {
        self.endpoint = endpoint.description
        self.action = action
        self.reason = reason
    }

    public var description: String { "\(endpoint): cannot \(action): \(reason)" }
}

/// Plain POSIX sockets for the control plane.
enum Sockets {
    /// A listening socket, non-blocking and close-on-exec; for TCP, the port bound
    /// (the one asked for, or the one the system chose for 0).
    static func listen(_ endpoint: ControlEndpoint) throws(ControlSocketError) -> (fd: Int32, port: Int?) {
        switch endpoint {
        case .unix(let path):
            try prepareSocketPath(path, endpoint)
            let fd = try listeningSocket(AF_UNIX, at: try unixAddress(path, endpoint), endpoint, reuseAddress: false)
            chmod(path, 0o600)
            return (fd, nil)
        case .tcp(let port):
            let fd = try listeningSocket(AF_INET, at: loopback(port: port), endpoint, reuseAddress: true)
            return (fd, boundPort(fd))
        }
    }

    /// A socket of `family`, non-blocking and close-on-exec, bound to `address` and
    /// listening; closed again when it cannot be.
    private static func listeningSocket<Address>(
        _ family: Int32, at address: Address, _ endpoint: ControlEndpoint, reuseAddress: Bool
    ) throws(ControlSocketError) -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw ControlSocketError(endpoint, "create a socket") }
        if reuseAddress {
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = address
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let error = ControlSocketError(endpoint, "listen")
            close(fd)
            throw error
        }
        return fd
    }

    /// A connected, blocking socket.
    static func connect(_ endpoint: ControlEndpoint) throws(ControlSocketError) -> Int32 {
        let family = endpoint.isUnix ? AF_UNIX : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlSocketError(endpoint, "create a socket") }
        let result: Int32
        switch endpoint {
        case .unix(let path):
            var address: sockaddr_un
            do { address = try unixAddress(path, endpoint) } catch {
                close(fd)
                throw error
            }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        case .tcp(let port):
            var address = loopback(port: port)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            let error = ControlSocketError(endpoint, "connect", errno: errno)
            close(fd)
            throw error
        }
        if endpoint.isUnix, let owner = peerUser(fd), owner != geteuid() {
            close(fd)
            throw ControlSocketError(endpoint, "trust the socket", reason: "it is served by user \(owner), not by this user (\(geteuid()))")
        }
        return fd
    }

    /// `struct ucred`, which Glibc's module leaves out (it needs _GNU_SOURCE).
    private struct PeerCredentials {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
    }

    /// The user of the process at the other end of a Unix socket, as the kernel saw it
    /// connect (SO_PEERCRED); nil when it cannot be told.
    static func peerUser(_ fd: Int32) -> uid_t? {
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 ? credentials.uid : nil
    }

    /// The IPv4 address of a TCP connection's other end, as a number; nil for another kind.
    static func peerAddress(_ fd: Int32) -> UInt32? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        return result == 0 && address.sin_family == sa_family_t(AF_INET) ? UInt32(bigEndian: address.sin_addr.s_addr) : nil
    }

    /// Non-blocking and close-on-exec.
    static func setNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    static func boundPort(_ fd: Int32) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return result == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    static func unixAddress(_ path: String, _ endpoint: ControlEndpoint) throws(ControlSocketError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw ControlSocketError(endpoint, "use the path", reason: "longer than the \(capacity - 1) bytes a socket path may have")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// Makes the folder of a socket or secret file, private to the user (0700). The
    /// shared runtime folder must then be a real folder of this user that no one else
    /// may enter: under /tmp another user could have made it first, to take the
    /// session's commands and answer in its place. A folder named by the user is theirs
    /// to choose. Thread: control.
    static func preparePrivateFolder(of path: String) throws(ControlSocketError) {
        let endpoint = ControlEndpoint.unix(path: path)
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        let shared = folder == ControlEndpoint.runtimeDirectory
        if shared {
            if mkdir(folder, 0o700) != 0 && errno != EEXIST {
                throw ControlSocketError(.unix(path: folder), "create the runtime folder")
            }
        } else if !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ControlSocketError(endpoint, "create its folder", reason: "\(error.localizedDescription)")
            }
        }
        guard shared else { return }
        var info = stat()
        guard lstat(folder, &info) == 0 else { throw ControlSocketError(.unix(path: folder), "inspect the runtime folder") }
        let advice = "remove it, or set XDG_RUNTIME_DIR to a folder of your own"
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw ControlSocketError(.unix(path: folder), "use the runtime folder", reason: "it is not a folder (a link or a file is in its place); \(advice)")
        }
        guard info.st_uid == geteuid() else {
            throw ControlSocketError(.unix(path: folder), "use the runtime folder", reason: "it belongs to user \(info.st_uid), not to this user (\(geteuid())); \(advice)")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw ControlSocketError(
                .unix(path: folder), "use the runtime folder",
                reason: "others may use it (mode \(String(info.st_mode & 0o777, radix: 8))); it must be 700: chmod 700 it or \(advice)")
        }
    }

    /// Makes the socket's folder (private to the user) and clears a socket left by a
    /// session that died; refuses one that a running session still answers on.
    private static func prepareSocketPath(_ path: String, _ endpoint: ControlEndpoint) throws(ControlSocketError) {
        try preparePrivateFolder(of: path)
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw ControlSocketError(endpoint, "listen", reason: "a file that is not a socket is in the way")
        }
        if let fd = try? connect(endpoint) {
            close(fd)
            throw ControlSocketError(endpoint, "listen", reason: "another session is answering on it")
        }
        unlink(path)
    }
}

extension ControlEndpoint {
    var isUnix: Bool { if case .unix = self { true } else { false } }
}
