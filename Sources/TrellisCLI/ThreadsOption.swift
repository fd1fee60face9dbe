import ArgumentParser
import TrellisEngine
import TrellisJACK
import TrellisSession

extension Parallelism.Choice: ExpressibleByArgument {}

/// `--threads N`: how many threads render a cycle, over the session's `threads:`; and
/// `--memory-budget MB`: what the compiled graph may allocate.
struct ThreadsOption: ParsableArguments {
    @Option(help: "Threads that render a cycle, 1 for one (default: the session's threads:, else the processors online). The schedule is kept only where measured faster.")
    var threads: Int?

    @Option(help: "measured: keep the schedule only where measured faster; always: run it every cycle, to compare its output with one thread's.")
    var schedule: Parallelism.Choice = .measured

    @Option(help: "Megabytes the compiled graph's buffers may take (default 1000); a session or edit that needs more is refused before anything is allocated.")
    var memoryBudget: Int?

    func validate() throws {
        if let threads, !(1...Parallelism.maximumThreads).contains(threads) {
            throw ValidationError("--threads must be from 1 to \(Parallelism.maximumThreads), not \(threads)")
        }
        if let memoryBudget, !(1...1_000_000).contains(memoryBudget) {
            throw ValidationError("--memory-budget must be from 1 to 1000000 (MB), not \(memoryBudget)")
        }
    }

    /// Load options that give the graph these threads.
    var loadOptions: SessionLoadOptions {
        var options = SessionLoadOptions()
        options.threads = threads
        options.defaultThreads = Parallelism.processorCount
        options.schedule = schedule
        options.memoryBudget = memoryBudget.map { $0 * 1_000_000 }
        return options
    }
}

extension CPULatencyPolicy: ExpressibleByArgument {}
