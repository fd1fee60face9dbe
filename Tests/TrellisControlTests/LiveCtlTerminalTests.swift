import Foundation
import Glibc
import Testing
import TrellisTestSupport

/// `trellis ctl` on a pseudo-terminal, typed at as a person types: what it draws, and
/// what it sends. util-linux's `script` gives it the terminal; we type into `script`.
final class TerminalCtl: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output: PipeText

    init(socket: String) throws {
        let out = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-f", "-e", "-c", "\(trellisExecutable.path) ctl \(socket)", "/dev/null"]
        process.standardInput = input
        process.standardOutput = out
        process.standardError = out
        output = PipeText(out)
        try process.run()
    }

    func type(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
        usleep(100_000)
    }

    /// Everything drawn so far, once it holds `text` or `seconds` have passed.
    func screen(containing text: String, within seconds: Double = 3) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if output.text.contains(text) { break }
            usleep(20_000)
        }
        return output.text
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

extension LiveControlTests {
    @Test("on a terminal, ctl edits the line: cursor keys, deletion, history and Tab completion")
    func terminalLineEditing() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let ctl = try TerminalCtl(socket: rig.socketPath)
        defer { ctl.stop() }
        #expect(ctl.screen(containing: "trellis> ").contains("trellis> "))
        // Left puts the cursor before the 6, Backspace takes the 2, and a 1 goes in: -16.
        ctl.type("set trim gain -26\u{1B}[D\u{7F}1\r")
        #expect(ctl.screen(containing: "ok -16").contains("ok -16"))
        // Up brings the line back; Ctrl-A, Ctrl-K empties it; Tab completes "ge" to "get ".
        ctl.type("\u{1B}[A\u{01}\u{0B}ge\ttrim gain\r")
        #expect(ctl.screen(containing: "\nok -16", within: 3).components(separatedBy: "ok -16").count == 3)
        // Ctrl-W takes the last word back; Ctrl-C drops a line unsent.
        ctl.type("get trim nothing\u{17}gain\r")
        #expect(ctl.screen(containing: "ok -16\r\n", within: 3).components(separatedBy: "ok -16").count == 4)
        ctl.type("remove trim\u{03}")
        ctl.type("list\r")
        let screen = ctl.screen(containing: "trim", within: 3)
        #expect(try rig.ask("list").contains("trim"), "Ctrl-C sent the line: \(screen)")
    }

    @Test("on a terminal, an event arrives above the line being typed, which is drawn again under it")
    func terminalEventsAboveTheLine() throws {
        let rig = try LiveRig()
        defer { rig.stop() }
        let ctl = try TerminalCtl(socket: rig.socketPath)
        defer { ctl.stop() }
        ctl.type("watch events=meter meters=trim rate=5\r")
        _ = ctl.screen(containing: "event meter")
        ctl.type("get tr")
        let marker = "trellis> get tr"
        let before = ctl.screen(containing: marker).components(separatedBy: marker).count
        let screen = ctl.screen(containing: "\u{1B}[K", within: 1)
        usleep(600_000)
        let after = ctl.screen(containing: marker).components(separatedBy: marker).count
        #expect(after > before, "the line was not drawn again after an event: \(screen.suffix(400))")
        let tail = ctl.screen(containing: marker)
        let lastEvent = try #require(tail.range(of: "event meter", options: .backwards))
        let lastLine = try #require(tail.range(of: marker, options: .backwards))
        #expect(lastEvent.lowerBound < lastLine.lowerBound, "the event went below the line")
    }
}
