import Foundation
import TrellisCore
import TrellisEngine
import TrellisGraph

/// Prints on stderr, as `warning: ...` lines naming the node, what the audio thread
/// reports during a render (a node that produced NaN or infinity and was silenced), and
/// counts the warnings for the render's summary.
///
/// Thread: made and ended on the rendering command's thread; notices arrive on the
/// engine's finish thread.
final class RenderWarnings: @unchecked Sendable {
    private let engine: RenderEngine
    private let lock = NSLock()
    private var warnings = 0
    private var token: NoticeListenerToken?

    init(engine: RenderEngine, registry: ComponentRegistry) {
        self.engine = engine
        let clearLine = isatty(STDERR_FILENO) != 0 ? "\r\u{1B}[K" : ""
        token = engine.addNoticeListener { [weak self] notice in
            guard notice.isWarning, let self else { return }
            self.lock.withLock { self.warnings += 1 }
            FileHandle.standardError.write(Data("\(clearLine)warning: \(notice.text(registry: registry))\n".utf8))
        }
    }

    deinit { if let token { engine.removeNoticeListener(token) } }

    /// Warnings so far; after the render returned, all of them.
    var count: Int { lock.withLock { warnings } }

    /// The render's closing line: what was written, and how many warnings.
    func summary(path: String, frames: Int, sampleRate: Double) -> String {
        let count = self.count
        let seconds = String(format: "%.2f", Double(frames) / max(1, sampleRate))
        return "\(path): \(frames) frames (\(seconds) s), \(count) warning\(count == 1 ? "" : "s")"
    }
}
