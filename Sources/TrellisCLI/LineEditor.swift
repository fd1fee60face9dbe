import Foundation
import Glibc
import Synchronization

/// A line editor for `trellis ctl` on a terminal, in the manner of readline: the cursor
/// moves (arrows, Ctrl-A/E/B/F, Home/End), text is deleted (Backspace, Delete, Ctrl-D,
/// Ctrl-K/U/W), earlier lines come back (Up/Down, kept for the run, 500 at most), Tab
/// completes a command's name, Ctrl-C drops the line and Ctrl-D on an empty line ends
/// input. Lines printed while one is being edited (replies, events) appear above it,
/// and the line is drawn again under them.
///
/// The terminal is in raw mode only while `readLine` waits, and is put back however it
/// returns. Thread: `readLine` from one thread; `print` from any.
final class LineEditor: @unchecked Sendable {
    private struct Line {
        var text: [Character] = []
        var cursor = 0
        var editing = false
    }

    private let prompt: String
    private let words: [String]
    private let line = Mutex(Line())
    private var history: [String] = []
    static let historyLimit = 500

    /// `words`: what Tab completes the first word to.
    init(prompt: String, words: [String]) {
        self.prompt = prompt
        self.words = words
    }

    /// Whether standard input and standard error are a terminal, where the editor draws.
    static var isInteractive: Bool { isatty(STDIN_FILENO) != 0 && isatty(STDERR_FILENO) != 0 }

    /// The next line, or nil at the end of input (Ctrl-D on an empty line, or input closed).
    func readLine() -> String? {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return Swift.readLine() }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        defer { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }

        var recalled = history.count
        var draft: [Character] = []
        line.withLock { $0 = Line(editing: true) }
        draw()
        var pending: [UInt8] = []
        while let byte = readByte() {
            switch byte {
            case 13, 10:
                let text = finish("\n")
                if !text.isEmpty && history.last != text {
                    history.append(text)
                    if history.count > Self.historyLimit { history.removeFirst() }
                }
                return text
            case 3:
                _ = finish("^C\n")
                line.withLock { $0 = Line(editing: true) }
                recalled = history.count
                draw()
            case 4:
                if line.withLock({ $0.text.isEmpty }) {
                    _ = finish("\n")
                    return nil
                }
                edit { if $0.cursor < $0.text.count { $0.text.remove(at: $0.cursor) } }
            case 1: edit { $0.cursor = 0 }
            case 5: edit { $0.cursor = $0.text.count }
            case 2: edit { $0.cursor = max(0, $0.cursor - 1) }
            case 6: edit { $0.cursor = min($0.text.count, $0.cursor + 1) }
            case 11: edit { $0.text.removeSubrange($0.cursor...) }
            case 21: edit { $0.text.removeSubrange(..<$0.cursor); $0.cursor = 0 }
            case 23: edit { Self.deleteWord(&$0) }
            case 12:
                FileHandle.standardError.write(Data("\u{1B}[H\u{1B}[2J".utf8))
                draw()
            case 127, 8: edit { if $0.cursor > 0 { $0.cursor -= 1; $0.text.remove(at: $0.cursor) } }
            case 9: edit { self.complete(&$0) }
            case 27:
                switch escapeSequence() {
                case "[A":
                    guard recalled > 0 else { break }
                    if recalled == history.count { draft = line.withLock { $0.text } }
                    recalled -= 1
                    replace(with: Array(history[recalled]))
                case "[B":
                    guard recalled < history.count else { break }
                    recalled += 1
                    replace(with: recalled == history.count ? draft : Array(history[recalled]))
                case "[C": edit { $0.cursor = min($0.text.count, $0.cursor + 1) }
                case "[D": edit { $0.cursor = max(0, $0.cursor - 1) }
                case "[H", "OH", "[1~": edit { $0.cursor = 0 }
                case "[F", "OF", "[4~": edit { $0.cursor = $0.text.count }
                case "[3~": edit { if $0.cursor < $0.text.count { $0.text.remove(at: $0.cursor) } }
                default: break
                }
            default:
                guard byte >= 32 else { break }
                pending.append(byte)
                // A character of several bytes goes in once it is whole.
                guard let text = String(validating: pending, as: UTF8.self) else {
                    if pending.count >= 4 { pending = [] }
                    break
                }
                pending = []
                edit {
                    for character in text {
                        $0.text.insert(character, at: $0.cursor)
                        $0.cursor += 1
                    }
                }
            }
        }
        _ = finish("\n")
        return nil
    }

    /// Prints `text` (one or more whole lines) to standard output, above the line being
    /// edited. Thread: any.
    func print(_ text: String) {
        line.withLock { state in
            guard state.editing, isatty(STDOUT_FILENO) != 0 else {
                FileHandle.standardOutput.write(Data(text.utf8))
                return
            }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            FileHandle.standardOutput.write(Data(text.utf8))
            FileHandle.standardError.write(Data(Self.rendering(prompt, state).utf8))
        }
    }

    // MARK: - Internals

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// The rest of an escape sequence: `[A`, `[3~`, `OH`.
    private func escapeSequence() -> String {
        guard let first = readByte() else { return "" }
        var sequence = String(UnicodeScalar(first))
        guard first == UInt8(ascii: "[") || first == UInt8(ascii: "O") else { return sequence }
        while let next = readByte() {
            sequence.append(Character(UnicodeScalar(next)))
            if (64...126).contains(next) || sequence.count > 8 { break }
        }
        return sequence
    }

    private func edit(_ change: (inout Line) -> Void) {
        line.withLock { change(&$0) }
        draw()
    }

    private func replace(with text: [Character]) {
        edit {
            $0.text = text
            $0.cursor = text.count
        }
    }

    /// Ends the line being edited: its text, after `ending` is written.
    private func finish(_ ending: String) -> String {
        line.withLock { state in
            state.editing = false
            FileHandle.standardError.write(Data(ending.utf8))
            return String(state.text)
        }
    }

    private func draw() {
        line.withLock { state in FileHandle.standardError.write(Data(Self.rendering(prompt, state).utf8)) }
    }

    /// The prompt and the text from the start of the terminal's line, the cursor put back.
    private static func rendering(_ prompt: String, _ state: Line) -> String {
        let back = state.text.count - state.cursor
        return "\r\u{1B}[K" + prompt + String(state.text) + (back > 0 ? "\u{1B}[\(back)D" : "")
    }

    private static func deleteWord(_ state: inout Line) {
        var start = state.cursor
        while start > 0 && state.text[start - 1] == " " { start -= 1 }
        while start > 0 && state.text[start - 1] != " " { start -= 1 }
        state.text.removeSubrange(start..<state.cursor)
        state.cursor = start
    }

    /// Completes the first word to the one command it can be, or as far as the
    /// commands it can be agree.
    private func complete(_ state: inout Line) {
        let before = String(state.text[..<state.cursor])
        guard !before.contains(" ") else { return }
        let matches = words.filter { $0.hasPrefix(before.lowercased()) }
        guard let first = matches.first else { return }
        var common = first
        for match in matches.dropFirst() {
            while !match.hasPrefix(common) { common.removeLast() }
        }
        let addition = Array(common.dropFirst(before.count)) + (matches.count == 1 ? [" "] : [])
        state.text.insert(contentsOf: addition, at: state.cursor)
        state.cursor += addition.count
    }
}
