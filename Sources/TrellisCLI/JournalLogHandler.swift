import Foundation
import Glibc
import Logging

/// Log lines for journald when standard error is the journal (systemd sets
/// `JOURNAL_STREAM` to that stream's device and inode): each line begins with its
/// syslog priority, `<3>` error, `<4>` warning, `<5>` notice, `<6>` info, `<7>` debug,
/// and carries no timestamp, which the journal keeps itself (sd-daemon(3)).
struct JournalLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        Self.write("\(event.message)", priority: Self.priority(event.level))
    }

    /// Writes `message` to standard error, each of its lines prefixed with `priority`.
    static func write(_ message: String, priority: Int) {
        let prefix = "<\(priority)>"
        let text = message.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 + "\n" }.joined()
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Whether standard error is the stream `JOURNAL_STREAM` names.
    static func standardErrorIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
