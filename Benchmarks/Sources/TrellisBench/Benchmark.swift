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

func formatted(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
