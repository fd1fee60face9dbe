import Foundation

/// How a command that has done its work ends: some plugins crash in their own teardown
/// (padthv1's `cleanup`, a toolkit's static destructors), which would turn finished work
/// into exit status 139. A command keeps its graph here once its files are written and
/// closed; `main` then flushes standard output and error and ends the process at once,
/// without freeing the plugins or running the libraries' destructors. Thread: control.
enum ProcessEnd {
    nonisolated(unsafe) private static var kept: [AnyObject] = []

    /// Keeps `object` (and the plugin instances it owns) alive until the process ends.
    static func keep(_ object: AnyObject) { kept.append(object) }

    /// Ends the process with `status` when a command kept its graph; returns otherwise.
    static func endIfKept(status: Int32 = 0) {
        guard !kept.isEmpty else { return }
        fflush(nil)
        _exit(status)
    }
}
