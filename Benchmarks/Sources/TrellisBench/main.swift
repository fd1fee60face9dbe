// Each group's file contributes a function returning its cases.
var all: [Benchmark] = []
all += try graphBenchmarks()
all += unitBenchmarks()
let filter = CommandLine.arguments.dropFirst().first
func selected(_ benchmark: Benchmark) -> Bool {
    filter == nil || benchmark.group.contains(filter!) || benchmark.name.contains(filter!)
}
for benchmark in all where selected(benchmark) {
    let nanoseconds = measure(benchmark)
    print("\(benchmark.group)\t\(benchmark.name)\t\(formatted(nanoseconds)) ns/frame")
}
for group in try avBenchmarks() where group.contains(where: selected) {
    let times = measureInterleaved(group)
    for (benchmark, nanoseconds) in zip(group, times) {
        print("\(benchmark.group)\t\(benchmark.name)\t\(formatted(nanoseconds)) ns/frame")
    }
    print("av\tTrellisAV over TrellisGraph through its backend\t\(formatted((times[0] / times[1] - 1) * 100)) %")
    print("av\tTrellisAV over TrellisGraph's engine alone\t\(formatted((times[0] / times[2] - 1) * 100)) %")
}
