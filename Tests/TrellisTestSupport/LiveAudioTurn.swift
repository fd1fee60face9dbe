import Testing

/// Suites and tests that run a JACK server take turns, across every test target.
///
/// Each starts its own private jackd under a unique name, so they could run side by side,
/// but the machine has two cores: a server whose cycles are starved by another suite's
/// server (the control suite runs one real-time) misses deadlines, and a missed deadline
/// glitches every client on it. One at a time, each sees only its own load.
public struct LiveAudioTurn: SuiteTrait, TestTrait, TestScoping {
    /// Applied to a suite, the whole suite is one turn.
    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await TurnQueue.shared.acquire()
        // The wait for the turn is not the test's time: scripts/run-with-deadlines starts
        // the test's deadline again at this line.
        print("⏳ Test \(test.displayName.map { "\"\($0)\"" } ?? test.name) took its live turn.")
        do {
            try await function()
        } catch {
            await TurnQueue.shared.release()
            throw error
        }
        await TurnQueue.shared.release()
    }
}

extension Trait where Self == LiveAudioTurn {
    /// Runs the suite or test while no other live-audio suite or test runs.
    public static var liveAudio: LiveAudioTurn { LiveAudioTurn() }
}

/// A first-come, first-served turn; waiting suspends a task, it never blocks a thread.
private actor TurnQueue {
    static let shared = TurnQueue()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
