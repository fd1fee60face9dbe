import TrellisCore

/// One measured case: `setUp` builds it, `run` processes `frames` frames once.
struct Benchmark {
    var group: String
    var name: String
    var framesPerRun: Int
    var run: () -> Void
}

/// Runs `benchmark` repeatedly for at least `nanoseconds`; returns nanoseconds per frame.
func timedRound(_ benchmark: Benchmark, nanoseconds: UInt64) -> Double {
    var runs = 0
    let start = HostClock.now()
    var elapsed: UInt64 = 0
    repeat {
        benchmark.run()
        runs += 1
        elapsed = HostClock.now() - start
    } while elapsed < nanoseconds
    return Double(elapsed) / Double(runs * benchmark.framesPerRun)
}

/// Times each benchmark over repeated runs and prints nanoseconds per frame (best of
/// several rounds, so a busy neighbour on the machine counts less).
func measure(_ benchmark: Benchmark, rounds: Int = 7, minimumNanoseconds: UInt64 = 200_000_000) -> Double {
    benchmark.run()  // warm-up
    return (0..<rounds).map { _ in timedRound(benchmark, nanoseconds: minimumNanoseconds / UInt64(rounds)) }.min()!
}

/// Times benchmarks in alternating rounds (a, b, c, a, b, c, ...) and returns the best
/// of each: a busy spell on the machine then falls on all of them, so their ratios hold.
func measureInterleaved(_ benchmarks: [Benchmark], rounds: Int = 21, nanosecondsPerRound: UInt64 = 30_000_000) -> [Double] {
    for benchmark in benchmarks { benchmark.run() }
    var best = [Double](repeating: .infinity, count: benchmarks.count)
    for _ in 0..<rounds {
        for (index, benchmark) in benchmarks.enumerated() {
            best[index] = min(best[index], timedRound(benchmark, nanoseconds: nanosecondsPerRound))
        }
    }
    return best
}

func formatted(_ value: Double) -> String {
    let hundredths = Int((abs(value) * 100).rounded())
    let fraction = hundredths % 100
    return "\(value < 0 ? "-" : "")\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
