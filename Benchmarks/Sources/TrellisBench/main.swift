// Each group's file contributes a function returning its cases.
var all: [Benchmark] = []
all += try graphBenchmarks()
all += unitBenchmarks()
all += try avBenchmarks()
let filter = CommandLine.arguments.dropFirst().first
for benchmark in all where filter == nil || benchmark.group.contains(filter!) || benchmark.name.contains(filter!) {
    let nanoseconds = measure(benchmark)
    print("\(benchmark.group)\t\(benchmark.name)\t\(formatted(nanoseconds)) ns/frame")
}
