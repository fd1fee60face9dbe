import Foundation

/// What a process run by `runCapped` did.
public struct CappedRun: Sendable {
    /// False when a signal ended it: a crash, a cap, or the deadline's SIGKILL.
    public var exited: Bool
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs `executable` under an address-space limit (`prlimit --as`), a CPU limit if
/// given, and a wall-clock deadline that ends in SIGKILL (`timeout -s KILL`).
public func runCapped(
    _ executable: String, _ arguments: [String], addressSpace: Int, cpuSeconds: Int? = nil, deadline seconds: Int,
    environment: [String: String] = [:]
) throws -> CappedRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    let limits = ["--as=\(addressSpace)"] + (cpuSeconds.map { ["--cpu=\($0)"] } ?? [])
    process.arguments = ["-s", "KILL", "\(seconds)", "/usr/bin/prlimit"] + limits + ["--", executable] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdout = PipeText(out), stderr = PipeText(err)
    try process.run()
    process.waitUntilExit()
    // timeout passes a death by signal on as 128 + the signal.
    return CappedRun(exited: process.terminationReason == .exit && process.terminationStatus < 128, status: process.terminationStatus,
                     stdout: stdout.untilEnd(), stderr: stderr.untilEnd())
}
