import Glibc

/// The control line between a host and its bridge process: messages of text over a
/// stream socket, each sent as a 4-byte length and its bytes. A message is a command
/// word, a newline, and its body. One owner closes the socket (`close`).
///
/// Thread: control, one request at a time (the host waits for each reply).
final class BridgeChannel: @unchecked Sendable {
    let descriptor: Int32
    static let largestMessage = 64 << 20

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    private var closed = false

    func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(descriptor)
    }

    /// Sends `command` and `body`. False when the other side is gone.
    @discardableResult
    func send(_ command: String, _ body: String = "") -> Bool {
        var bytes = Array((command + "\n" + body).utf8)
        var length = UInt32(bytes.count).littleEndian
        bytes.insert(contentsOf: withUnsafeBytes(of: &length) { Array($0) }, at: 0)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    /// The next message, waiting at most `timeoutMilliseconds` (-1: no limit); nil when
    /// the other side is gone, the time passed, or the message is malformed.
    func receive(timeoutMilliseconds: Int32 = -1) -> (command: String, body: String)? {
        guard let header = read(count: 4, timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        let length = Int(UInt32(littleEndian: header.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))
        guard length <= Self.largestMessage, let bytes = read(count: length, timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let newline = text.firstIndex(of: "\n") else { return nil }
        return (String(text[..<newline]), String(text[text.index(after: newline)...]))
    }

    private func read(count: Int, timeoutMilliseconds: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let got = bytes[received...].withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            received += got
        }
        return bytes
    }
}

/// Parameter values in messages: `index bits` per line, the float's bit pattern in
/// hexadecimal, so a value crosses exactly.
enum BridgeValues {
    static func text(_ values: [(Int, Float)]) -> String {
        values.map { "\($0.0) \(String($0.1.bitPattern, radix: 16))" }.joined(separator: "\n")
    }

    static func parse(_ text: String) -> [(Int, Float)] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 2, let index = Int(words[0]), let bits = UInt32(words[1], radix: 16) else { return nil }
            return (index, Float(bitPattern: bits))
        }
    }
}
