import Glibc

/// Where the session manager listens: `NSM_URL`, an OSC URL such as
/// `osc.udp://studio:15792/`. NSM servers speak UDP only, so a client answers over UDP.
public struct NSMAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    /// Reads `url`; anything but `osc.udp://HOST:PORT[/]` is an error that quotes it.
    public init(url: String) throws(NSMError) {
        let scheme = "osc.udp://"
        guard url.hasPrefix(scheme) else {
            throw NSMError("NSM_URL \"\(url)\" is not an OSC UDP address (osc.udp://HOST:PORT/)")
        }
        var rest = url.dropFirst(scheme.count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0 else {
            throw NSMError("NSM_URL \"\(url)\" has no port (osc.udp://HOST:PORT/)")
        }
        var host = rest[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, !host.contains("/") else {
            throw NSMError("NSM_URL \"\(url)\" has no host (osc.udp://HOST:PORT/)")
        }
        self.host = String(host)
        self.port = port
    }

    public var description: String { "osc.udp://\(host.contains(":") ? "[\(host)]" : host):\(port)/" }

    /// The IPv4 address the host name stands for; the server's own URL carries the
    /// machine's name, which resolves locally.
    func resolve() throws(NSMError) -> sockaddr_in {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found, let address = first.pointee.ai_addr else {
            let reason = status == 0 ? "no IPv4 address" : String(cString: gai_strerror(status))
            throw NSMError("the session manager's host \"\(host)\" in NSM_URL \(self) cannot be resolved: \(reason)")
        }
        defer { freeaddrinfo(first) }
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
    }
}
