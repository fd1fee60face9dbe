import Foundation
import Synchronization
import TrellisControl

/// `trellis ctl`'s connection: lines go out from the caller's thread, and a reader
/// thread prints each reply and event the moment it arrives, so a watch streams while
/// standard input waits and a script's events come out in time. Replies are counted so
/// `finish` knows when every line has its answer.
final class CtlSession: @unchecked Sendable {
    private struct State {
        var sent = 0
        var answered = 0
        var failed = false
        var closed = false
        var watching = false
    }

    private let client: ControlClient
    private let state = Mutex(State())
    private let changed = NSCondition()
    /// Printed (to standard error, so standard output stays the replies) before each
    /// line read from a terminal.
    var prompt: String?
    /// On a terminal: replies and events go above the line being edited.
    var editor: LineEditor?

    init(client: ControlClient) {
        self.client = client
    }

    /// Starts the reader thread.
    func start() {
        let thread = Thread { [self] in read() }
        thread.name = "trellis-ctl-reader"
        thread.start()
    }

    /// Sends one line; `watching` says it starts a watch, so `finish` waits for events.
    func send(_ line: String, watching: Bool) {
        state.withLock {
            $0.sent += 1
            if watching { $0.watching = true }
        }
        do { try client.send(line) } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            signal { $0.failed = true; $0.closed = true }
        }
    }

    func showPrompt() {
        guard let prompt else { return }
        FileHandle.standardError.write(Data(prompt.utf8))
    }

    /// Waits for every reply (up to `timeout` seconds after the last line), then, after a
    /// watch, until the session closes the connection. Returns false when a reply was an
    /// error or the connection failed before every line was answered.
    func finish(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        changed.lock()
        defer { changed.unlock() }
        while true {
            let now = state.withLock { $0 }
            if now.closed { return !now.failed && now.answered >= now.sent }
            if now.answered >= now.sent && !now.watching { return !now.failed }
            if now.answered < now.sent && !changed.wait(until: deadline) {
                FileHandle.standardError.write(Data("no reply within \(timeout) s\n".utf8))
                return false
            }
            if now.answered >= now.sent && now.watching { changed.wait() }
        }
    }

    private func read() {
        while true {
            let line: String?
            do { line = try client.readLine(timeout: .greatestFiniteMagnitude) } catch {
                signal { $0.closed = true }
                return
            }
            guard let line else {
                signal { $0.closed = true }
                return
            }
            // Straight to the descriptor: stdio's stdout would wait on the lock the main
            // thread holds while it reads standard input (fflush(NULL) takes every stream's).
            if let editor { editor.print(line + "\n") } else { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
            guard !ControlClient.isEvent(line) else { continue }
            let failed = line.hasPrefix("error") || line.hasPrefix("{") && line.contains("\"ok\":false")
            signal {
                $0.answered += 1
                if failed { $0.failed = true }
            }
            if state.withLock({ $0.answered >= $0.sent }) { showPrompt() }
        }
    }

    private func signal(_ change: (inout State) -> Void) {
        changed.lock()
        state.withLock { change(&$0) }
        changed.broadcast()
        changed.unlock()
    }
}
