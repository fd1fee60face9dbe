import Glibc
import Synchronization
import TrellisChain
import TrellisCore

/// What every chain, listing and render of the process shares: one registry of every
/// unit (LV2 plugins resolved as they are named), made on first use.
enum Library {
    private static let shared = Mutex<ComponentRegistry?>(nil)

    static func registry() throws(CommandError) -> ComponentRegistry {
        let made: Result<ComponentRegistry, CommandError> = shared.withLock { registry in
            if let registry { return .success(registry) }
            do {
                let made = try Units.registry()
                registry = made
                return .success(made)
            } catch {
                return .failure(CommandError("the units could not be listed: \(error)", kind: .unit))
            }
        }
        return try made.get()
    }

    /// Text the caller frees with `trellis_free_string`.
    static func owned(_ text: String) -> UnsafeMutablePointer<CChar> { strdup(text)! }

    /// Never freed, never written.
    nonisolated(unsafe) static let version: UnsafePointer<CChar> = UnsafePointer(strdup(TrellisVersion.text)!)
}

@_cdecl("trellis_version")
public func trellis_version() -> UnsafePointer<CChar> { Library.version }

@_cdecl("trellis_last_error")
public func trellis_last_error() -> UnsafePointer<CChar> { LastError.text }

@_cdecl("trellis_last_status")
public func trellis_last_status() -> Int32 { LastError.status }

@_cdecl("trellis_free_string")
public func trellis_free_string(_ text: UnsafeMutablePointer<CChar>?) { free(text) }
