import ArgumentParser
import TrellisEngine
import TrellisJACK
import TrellisSession

extension Parallelism.Choice: ExpressibleByArgument {}

/// `--threads N`: how many threads render a cycle, over the session's `threads:`.
struct ThreadsOption: ParsableArguments {
    @Option(help: "Threads that render a cycle, 1 for one (default: the session's threads:, else the processors online). The schedule is kept only where measured faster.")
    var threads: Int?

    @Option(help: "measured: keep the schedule only where measured faster; always: run it every cycle, to compare its output with one thread's.")
    var schedule: Parallelism.Choice = .measured

    func validate() throws {
        if let threads, !(1...Parallelism.maximumThreads).contains(threads) {
            throw ValidationError("--threads must be from 1 to \(Parallelism.maximumThreads), not \(threads)")
        }
    }

    /// Load options that give the graph these threads.
    var loadOptions: SessionLoadOptions {
        var options = SessionLoadOptions()
        options.threads = threads
        options.defaultThreads = Parallelism.processorCount
        options.schedule = schedule
        return options
    }
}

extension CPULatencyPolicy: ExpressibleByArgument {}
