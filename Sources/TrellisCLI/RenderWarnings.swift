import Foundation
import TrellisControl
import TrellisCore
import TrellisEngine
import TrellisGraph

/// Prints on stderr, naming the node, what the engine's finish step reports during a
/// render: `warning: ...` for a node silenced for NaN or infinity, lost messages or a
/// plugin's error or warning line; `log: ...` for a plugin's other log lines. Counts
/// both for the render's summary.
///
/// Thread: made and ended on the rendering command's thread; notices arrive on the
/// engine's finish thread.
final class RenderWarnings: @unchecked Sendable {
    private let engine: RenderEngine
    private let lock = NSLock()
    private var warnings = 0
    private var logLines = 0
    /// The first `listLimit` warnings as JSON objects, for `--json`'s `notices`.
    private var listed: [ControlValue] = []
    private static let listLimit = 100
    private var token: NoticeListenerToken?

    init(engine: RenderEngine, registry: ComponentRegistry) {
        self.engine = engine
        let clearLine = isatty(STDERR_FILENO) != 0 ? "\r\u{1B}[K" : ""
        token = engine.addNoticeListener { [weak self] notice in
            guard let self, notice.isWarning || notice.kind == .log else { return }
            let text = notice.text(registry: registry)
            let facts = notice.isWarning ? notice.controlValue(registry: registry) : nil
            self.lock.withLock {
                if notice.isWarning { self.warnings += 1 } else { self.logLines += 1 }
                if let facts, self.listed.count < Self.listLimit { self.listed.append(facts) }
            }
            let label = notice.isWarning ? "warning" : "log"
            FileHandle.standardError.write(Data("\(clearLine)\(label): \(text)\n".utf8))
        }
    }

    deinit { if let token { engine.removeNoticeListener(token) } }

    /// A warning of the command's own (a damaged input file), printed and counted.
    func warn(_ text: String) {
        lock.withLock {
            warnings += 1
            if listed.count < Self.listLimit { listed.append(.object([("kind", .string("input")), ("message", .string(text))])) }
        }
        FileHandle.standardError.write(Data("warning: \(text)\n".utf8))
    }

    /// Warnings so far; after the render returned, all of them.
    var count: Int { lock.withLock { warnings } }

    /// The warnings' facts so far (the first 100), as a JSON array.
    var noticesJSON: String { lock.withLock { ControlValue.array(listed).json } }

    /// Plugin log lines that were not warnings, so far.
    var logCount: Int { lock.withLock { logLines } }

    /// The render's closing line: what was written, how many warnings and, when there
    /// were any, how many other plugin log lines.
    func summary(path: String, frames: Int, sampleRate: Double) -> String {
        let (count, lines) = lock.withLock { (warnings, logLines) }
        let seconds = String(format: "%.2f", Double(frames) / max(1, sampleRate))
        let logged = lines == 0 ? "" : ", \(lines) log line\(lines == 1 ? "" : "s")"
        return "\(path): \(frames) frames (\(seconds) s), \(count) warning\(count == 1 ? "" : "s")" + logged
    }
}
