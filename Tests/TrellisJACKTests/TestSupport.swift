import Foundation
import Synchronization
import Testing
import TrellisJACK

/// Every test gets its own jackd under a name no other test or run uses.
enum TestServer {
    private static let counter = Atomic<Int>(0)

    static func uniqueName() -> String {
        "trellis-test-\(getpid())-\(counter.wrappingAdd(1, ordering: .relaxed).oldValue)"
    }

    static func start() throws -> JACKServer {
        try JACKServer.startPrivateServer(name: uniqueName())
    }
}

/// Collects a head node's events as a listener, for waiting on and inspecting, and notes
/// which threads the listener ran on.
final class EventLog: Sendable {
    private let events = Mutex<[JACKEvent]>([])
    private let threads = Mutex<Set<UInt>>([])

    func attach(to head: JACKHeadNode) {
        head.addListener { [self] event in
            events.withLock { $0.append(event) }
            threads.withLock { _ = $0.insert(UInt(pthread_self())) }
        }
    }

    var all: [JACKEvent] { events.withLock { $0 } }
    var listenerThreads: Set<UInt> { threads.withLock { $0 } }

    func contains(_ event: JACKEvent) -> Bool { all.contains(event) }

    func wait(for event: JACKEvent, timeout: Double = 10) throws {
        try waitUntil(timeout: timeout, "\(event) (seen: \(all))") { contains(event) }
    }

    func wait(timeout: Double = 10, _ what: String, _ predicate: @escaping (JACKEvent) -> Bool) throws {
        try waitUntil(timeout: timeout, "\(what) (seen: \(all))") { all.contains(where: predicate) }
    }
}

/// Runs one of jackd2's command-line tools against `server` and returns its standard output.
@discardableResult
func jackTool(_ tool: String, _ arguments: [String], server: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["JACK_DEFAULT_SERVER"] = server
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw TestFailure("\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
    }
    return String(decoding: data, as: UTF8.self)
}

/// The connections `jack_lsp -c` reports for one port.
func connectionsReportedByJackLsp(of port: String, server: String) throws -> [String] {
    let lines = try jackTool("jack_lsp", ["-c", port], server: server).split(separator: "\n")
    return lines.filter { $0.hasPrefix(" ") || $0.hasPrefix("\t") }.map { $0.trimmingCharacters(in: .whitespaces) }
}

/// The index of the first sample whose magnitude exceeds `threshold`.
func firstSound(_ samples: [Float], threshold: Float = 1e-4) -> Int? {
    samples.firstIndex { abs($0) > threshold }
}

/// The largest difference between `recorded` and `expected` once the first sound of each
/// is lined up; also returns the lag in frames.
func alignedError(recorded: [Float], expected: [Float]) -> (lag: Int, maximumError: Float, compared: Int)? {
    guard let start = firstSound(recorded), let reference = firstSound(expected), start >= reference else { return nil }
    let lag = start - reference
    let count = recorded.count - lag
    var worst: Float = 0
    for index in 0..<count {
        worst = max(worst, abs(recorded[index + lag] - expected[index]))
    }
    return (lag, worst, count)
}
