import Foundation
import Glibc

/// Standard output kept for Trellis' own words. Plugins print to it (guitarix's
/// "using block size: 4096", yoshimi's start-up lines) when they are instantiated, run
/// and freed; where stdout is read by a program (`info --json`, `run --json`), what they
/// print goes to standard error instead.
enum OwnStandardOutput {
    /// Points descriptor 1 at standard error for the rest of the process and returns a
    /// handle on what it was. Thread: main, before any plugin loads.
    static func divertPlugins() -> FileHandle {
        fflush(nil)  // every stream: what is buffered was written before
        let own = dup(STDOUT_FILENO)
        guard own >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else { return FileHandle.standardOutput }
        return FileHandle(fileDescriptor: own, closeOnDealloc: false)
    }
}
