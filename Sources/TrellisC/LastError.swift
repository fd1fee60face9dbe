import Glibc
import TrellisChain

/// Each thread's last failure, as the C interface reports it: `trellis_last_error`'s
/// text (owned here, freed when replaced or when the thread ends) and its status.
enum LastError {
    private final class Slot {
        var text: UnsafeMutablePointer<CChar>?
        var status: Int32 = 0
        deinit { free(text) }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { slot in if let slot { Unmanaged<AnyObject>.fromOpaque(slot).release() } }
        return key
    }()

    private static var slot: Slot {
        if let raw = pthread_getspecific(key) { return Unmanaged<Slot>.fromOpaque(raw).takeUnretainedValue() }
        let slot = Slot()
        pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
        return slot
    }

    /// Records `error` for the calling thread and returns its status.
    @discardableResult
    static func record(_ error: CommandError) -> Int32 {
        let slot = slot
        free(slot.text)
        slot.text = strdup(error.description)
        slot.status = Status(error.kind).rawValue
        return slot.status
    }

    static func clear() {
        let slot = slot
        free(slot.text)
        slot.text = nil
        slot.status = 0
    }

    static var text: UnsafePointer<CChar> { UnsafePointer(slot.text) ?? empty }
    static var status: Int32 { slot.status }
    /// Never freed, never written.
    nonisolated(unsafe) private static let empty: UnsafePointer<CChar> = UnsafePointer(strdup("")!)
}

/// trellis.h's `trellis_status`.
enum Status: Int32 {
    case ok = 0, other = -1, argument = -2, unit = -3, parameter = -4, file = -5, session = -6

    init(_ kind: CommandError.Kind) {
        switch kind {
        case .other: self = .other
        case .argument: self = .argument
        case .unit: self = .unit
        case .parameter: self = .parameter
        case .file: self = .file
        case .session: self = .session
        }
    }
}

/// Runs `body`, clearing the thread's last error first; a failure is recorded and its
/// status returned in place of a result.
func calling<T>(failing: (Int32) -> T, _ body: () throws(CommandError) -> T) -> T {
    LastError.clear()
    do { return try body() } catch { return failing(LastError.record(error)) }
}

/// A null argument, as the C interface reports it.
func required<T>(_ pointer: T?, _ name: String) throws(CommandError) -> T {
    guard let pointer else { throw CommandError("\(name) is NULL", kind: .argument) }
    return pointer
}
