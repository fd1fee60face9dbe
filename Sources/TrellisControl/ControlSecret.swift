import Glibc

/// What a TCP or OSC client must show: anyone on the machine can reach 127.0.0.1, so a
/// port alone says nothing about who is asking. A session makes a new one each time it
/// starts and writes it where only its user can read it (`ControlSecretFile`).
///
/// Thread: any (a plain value).
public struct ControlSecret: Sendable, Hashable {
    /// 64 hexadecimal digits: 256 bits from the system's random source (getrandom).
    public let text: String

    public init(text: String) { self.text = text }

    public static func random() -> ControlSecret {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return ControlSecret(text: digits.joined())
    }

    /// Compares in time that does not depend on where the texts differ.
    public func matches(_ offered: some StringProtocol) -> Bool {
        let expected = Array(text.utf8), given = Array(offered.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }
}

/// The file beside a session's socket that tells its user's `trellis ctl` the secret
/// and the ports: `NAME.secret`, mode 0600, made new (O_EXCL, O_NOFOLLOW) by the session
/// and removed when it stops.
///
/// ```
/// secret 5f0c…
/// tcp 9000
/// osc 9001
/// ```
public struct ControlSecretFile: Sendable, Equatable {
    public var secret: ControlSecret
    public var tcpPort: Int?
    public var oscPort: Int?
    /// The web desk's address (`http://127.0.0.1:8080/`), without the token.
    public var webURL: String?

    public init(secret: ControlSecret, tcpPort: Int?, oscPort: Int?, webURL: String? = nil) {
        self.secret = secret
        self.tcpPort = tcpPort
        self.oscPort = oscPort
        self.webURL = webURL
    }

    /// `NAME.secret` beside `NAME.sock`.
    public static func path(besideSocket socket: String) -> String {
        (socket.hasSuffix(".sock") ? String(socket.dropLast(5)) : socket) + ".secret"
    }

    var text: String {
        var lines = ["secret \(secret.text)"]
        if let tcpPort { lines.append("tcp \(tcpPort)") }
        if let oscPort { lines.append("osc \(oscPort)") }
        if let webURL { lines.append("web \(webURL)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Replaces a file left by a session that died; never follows a link.
    /// Thread: control.
    public func write(to path: String) throws(ControlSocketError) {
        let endpoint = ControlEndpoint.unix(path: path)
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid() else {
                throw ControlSocketError(endpoint, "write the control secret", reason: "something that is not this user's file is in the way")
            }
            unlink(path)
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ControlSocketError(endpoint, "write the control secret") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count, fchmod(fd, 0o600) == 0 else {
            let error = ControlSocketError(endpoint, "write the control secret")
            unlink(path)
            throw error
        }
    }

    /// Reads a session's file, refusing one another user could have written or read.
    /// Thread: any.
    public static func read(_ path: String) throws(ControlSocketError) -> ControlSecretFile {
        let endpoint = ControlEndpoint.unix(path: path)
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw ControlSocketError(endpoint, "read the control secret") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw ControlSocketError(endpoint, "read the control secret", reason: "not a regular file")
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            throw ControlSocketError(endpoint, "trust the control secret", reason: "it must belong to this user and be readable by no one else (mode 0600)")
        }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(fd, &bytes, bytes.count)
        guard count > 0 else { throw ControlSocketError(endpoint, "read the control secret", reason: "the file is empty") }
        var file = ControlSecretFile(secret: ControlSecret(text: ""), tcpPort: nil, oscPort: nil)
        for line in String(decoding: bytes[0..<count], as: UTF8.self).split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 2 else { continue }
            switch words[0] {
            case "secret": file.secret = ControlSecret(text: String(words[1]))
            case "tcp": file.tcpPort = Int(words[1])
            case "osc": file.oscPort = Int(words[1])
            case "web": file.webURL = String(words[1])
            default: break
            }
        }
        guard file.secret.text.utf8.count == 64 else {
            throw ControlSocketError(endpoint, "read the control secret", reason: "no \"secret\" line of 64 hexadecimal digits")
        }
        return file
    }
}
