import Glibc
import TrellisChain
import TrellisCore

enum Library {
    /// What every chain, listing and render of the process shares: the process's
    /// registry of every unit (`Units.shared()`).
    static func registry() throws(CommandError) -> ComponentRegistry {
        do { return try Units.shared() } catch { throw CommandError("the units could not be listed: \(error)", kind: .unit) }
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
