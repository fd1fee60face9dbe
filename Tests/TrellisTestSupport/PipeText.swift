import Foundation

/// What a child process writes to a pipe, read with read(2) on a thread of its own
/// until end of file. Foundation's readability handler on Linux can fire on a closed
/// handle when the child dies; this reader only ever owns its descriptor's reads.
public final class PipeText: @unchecked Sendable {
    private let pipe: Pipe
    private let bytes = Locked<[UInt8]>([])
    private let ended = DispatchSemaphore(value: 0)

    /// Starts reading `pipe`; give it to the process as its output before `run()`.
    public init(_ pipe: Pipe) {
        self.pipe = pipe
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        let bytes = self.bytes, ended = self.ended
        // The reader keeps the pipe, so its descriptor stays open while it reads.
        let reader = Thread {
            withExtendedLifetime(pipe) {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    bytes.withLock { $0 += buffer[..<count] }
                }
            }
            ended.signal()
        }
        reader.start()
    }

    /// What was read so far.
    public var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Everything, once the last writer has closed the pipe or `seconds` have passed.
    public func untilEnd(within seconds: Double = 5) -> String {
        if ended.wait(timeout: .now() + seconds) == .success { ended.signal() }
        return text
    }
}
