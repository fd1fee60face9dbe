import CTrellisShim

/// How many threads may render one cycle, and how the engine decides to use them.
///
/// With more than one thread, each program carries a schedule of tasks (see
/// `TaskGraph`). Under `.measured` the program first runs on one thread and times
/// every task, then tries the schedule and keeps it only if its cycles were faster:
/// a small or serial graph stays single-threaded. `.always` skips the measuring (tests
/// use it to run every graph in parallel).
public struct Parallelism: Sendable, Hashable, CustomStringConvertible {
    public enum Choice: String, Sendable, Hashable {
        case measured, always
    }

    /// Threads per cycle, the audio thread included; 1 is off.
    public var threads: Int
    public var choice: Choice

    public init(threads: Int, choice: Choice = .measured) {
        self.threads = max(1, min(threads, Self.maximumThreads))
        self.choice = choice
    }

    public static let off = Parallelism(threads: 1)
    /// More threads than this cannot gain on any machine Trellis runs on.
    public static let maximumThreads = 64

    /// The processors online: the default thread count of sessions.
    public static var processorCount: Int { Int(trellis_processor_count()) }

    public var description: String { threads == 1 ? "1 thread" : "\(threads) threads (\(choice))" }
}
