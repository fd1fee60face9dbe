import CJack
import Glibc
import Synchronization

/// Routes libjack's own error and info messages to stderr, except while the head node or
/// a probe is knocking on a server that is not there, when they would only repeat
/// "cannot connect" every few hundred milliseconds.
enum JACKMessages {
    private static let quietDepth = Atomic<Int>(0)

    private static let installed: Void = {
        jack_set_error_function { message in JACKMessages.write(message) }
        jack_set_info_function { message in JACKMessages.write(message) }
    }()

    private static func write(_ message: UnsafePointer<CChar>?) {
        guard let message, quietDepth.load(ordering: .relaxed) == 0 else { return }
        _ = Glibc.write(2, "jack: ", 6)
        _ = Glibc.write(2, message, strlen(message))
        _ = Glibc.write(2, "\n", 1)
    }

    /// Installs the filter once per process. Thread: control.
    static func install() { installed }

    /// Runs `body` with libjack's messages silenced. Thread: control.
    static func quietly<Result>(_ body: () -> Result) -> Result {
        install()
        quietDepth.wrappingAdd(1, ordering: .relaxed)
        defer { quietDepth.wrappingSubtract(1, ordering: .relaxed) }
        return body()
    }
}
