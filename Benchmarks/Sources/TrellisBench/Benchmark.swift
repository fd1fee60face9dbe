import TrellisCore

/// One measured case: `setUp` builds it, `run` processes `frames` frames once.
struct Benchmark {
    var group: String
    var name: String
    var framesPerRun: Int
    var run: () -> Void
}

/// Times each benchmark over repeated runs and prints nanoseconds per frame (best of
/// several rounds, so a busy neighbour on the machine counts less).
func measure(_ benchmark: Benchmark, rounds: Int = 7, minimumNanoseconds: UInt64 = 200_000_000) -> Double {
    benchmark.run()  // warm-up
    var best = Double.infinity
    for _ in 0..<rounds {
        var runs = 0
        let start = HostClock.now()
        var elapsed: UInt64 = 0
        repeat {
            benchmark.run()
            runs += 1
            elapsed = HostClock.now() - start
        } while elapsed < minimumNanoseconds / UInt64(rounds)
        best = min(best, Double(elapsed) / Double(runs * benchmark.framesPerRun))
    }
    return best
}

/// Times benchmarks in alternating rounds (a, b, c, a, b, c, ...) and returns the best
/// of each: a busy spell on the machine then falls on all of them, so their ratios hold.
func measureInterleaved(_ benchmarks: [Benchmark], rounds: Int = 21, nanosecondsPerRound: UInt64 = 30_000_000) -> [Double] {
    for benchmark in benchmarks { benchmark.run() }
    var best = [Double](repeating: .infinity, count: benchmarks.count)
    for _ in 0..<rounds {
        for (index, benchmark) in benchmarks.enumerated() {
            var runs = 0
            let start = HostClock.now()
            var elapsed: UInt64 = 0
            repeat {
                benchmark.run()
                runs += 1
                elapsed = HostClock.now() - start
            } while elapsed < nanosecondsPerRound
            best[index] = min(best[index], Double(elapsed) / Double(runs * benchmark.framesPerRun))
        }
    }
    return best
}

func formatted(_ value: Double) -> String {
    let hundredths = Int((abs(value) * 100).rounded())
    let fraction = hundredths % 100
    return "\(value < 0 ? "-" : "")\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
