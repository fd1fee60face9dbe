import Foundation

/// A one-line progress bar on stderr, shown only when stderr is a terminal.
final class ProgressBar {
    let total: Int
    let label: String
    let isVisible: Bool
    private var lastPercent = -1

    init(total: Int, label: String) {
        self.total = max(1, total)
        self.label = label
        isVisible = isatty(STDERR_FILENO) != 0
    }

    func update(_ done: Int) {
        let percent = done * 100 / total
        guard isVisible, percent != lastPercent else { return }
        lastPercent = percent
        let filled = percent * 30 / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)%".utf8))
    }

    func finish() {
        if isVisible { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
