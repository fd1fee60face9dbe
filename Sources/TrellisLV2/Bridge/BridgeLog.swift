import Glibc
import Synchronization
import TrellisCore

/// The lines a bridged plugin logs, carried from the bridge to the host over a socket
/// pair used as a pipe (the bridge's descriptor 5), one line per message: the level's
/// code as a digit, a space, the text. The host hands them to the finish service as
/// the plugin's own, so an isolated plugin logs as it would in process.
enum BridgeLog {
    static let descriptor: Int32 = 5

    /// Writes one line to the host. Thread: the bridge's, any but its render thread.
    static func send(_ level: UnitMessage.LogLevel, _ text: String) {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        let line = "\(level.code) \(flat)\n"
        _ = line.withCString { write(descriptor, $0, strlen($0)) }
    }
}

/// The lines a host has read from its bridge's log pipe, kept until the finish service
/// takes them. Thread: any.
final class BridgeLogLines: Sendable {
    private let lines = Mutex<(kept: [(UnitMessage.LogLevel, String)], dropped: Int)>(([], 0))
    /// Lines kept at most; past it they are counted as dropped.
    static let capacity = 1024

    func append(_ level: UnitMessage.LogLevel, _ text: String) {
        lines.withLock { lines in
            if lines.kept.count < Self.capacity { lines.kept.append((level, text)) } else { lines.dropped += 1 }
        }
    }

    /// The lines since the last call, and how many were dropped.
    func take() -> (lines: [(UnitMessage.LogLevel, String)], dropped: Int) {
        lines.withLock { lines in
            defer { lines = ([], 0) }
            return (lines.kept, lines.dropped)
        }
    }
}

/// The host's end of one bridge process's log pipe, owned by the thread that watches
/// the process: it reads the lines into `BridgeLogLines`, and the pipe closes with it.
/// Used under `BridgeWatch.logReader`'s lock only.
final class BridgeLogReader: @unchecked Sendable {
    let descriptor: Int32
    private var partial: [UInt8] = []

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Reads what the pipe holds (call when it is readable); false once the bridge's end
    /// is closed.
    func read(into sink: BridgeLogLines) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(descriptor, &chunk, chunk.count)
        if count < 0 { return errno == EINTR || errno == EAGAIN }
        guard count > 0 else { return false }
        partial += chunk[..<count]
        while let newline = partial.firstIndex(of: 10) {
            let line = String(decoding: partial[..<newline], as: UTF8.self)
            partial.removeFirst(newline + 1)
            if let code = line.first?.wholeNumberValue { sink.append(UnitMessage.LogLevel(code: UInt8(code)), String(line.dropFirst(2))) }
        }
        return true
    }

    /// Reads what is left without waiting, for a bridge that ended.
    func readRest(into sink: BridgeLogLines) {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 0) > 0, read(into: sink) {}
    }
}

extension UnitMessage.LogLevel {
    /// The level as one byte, for the log queues and the bridge's log pipe.
    var code: UInt8 {
        switch self {
        case .error: 0
        case .warning: 1
        case .note: 2
        case .trace: 3
        }
    }

    init(code: UInt8) {
        switch code {
        case 0: self = .error
        case 1: self = .warning
        case 3: self = .trace
        default: self = .note
        }
    }
}
