import CAllocationCounter
import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisUnits

/// A fixed-seed generator of stereo graphs: tones, effects (gain, EQ, delay, limiter,
/// subgraphs of effects), splitters and mixers, merged into one output.
struct RandomGraphBuilder {
    private var state: UInt64
    /// Effect nodes an observer watches (every third one made), in the order made.
    private(set) var watched: [NodeID] = []

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }

    mutating func unit() -> Float { Float(next(10_000)) / 10_000 }

    /// A graph of at most `limit` nodes (subgraphs' insides not counted) on `engine`.
    mutating func graph(limit: Int, engine: RenderEngine) throws -> Graph {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256, engine: engine)
        var open: [NodeID] = []
        var count = 0
        func add(_ unit: any AudioUnit) throws -> NodeID {
            count += 1
            return try graph.addNode(unit)
        }
        for _ in 0...next(3) { open.append(try tone(in: graph)); count += 1 }
        let target = 4 + next(max(1, limit - 6))
        while count < target {
            switch next(10) {
            case 0...4 where !open.isEmpty:
                let source = open.remove(at: next(open.count))
                let node = try add(try effect(nested: next(5) == 0))
                try graph.connect(source, to: node)
                open.append(node)
                if count % 3 == 0 { watched.append(node) }
            case 5, 6 where !open.isEmpty:
                let source = open.remove(at: next(open.count))
                let outputs = 2 + next(2)
                let splitter = try add(Splitter(channelCount: 2, outputs: outputs))
                try graph.connect(source, to: splitter)
                for bus in 0..<outputs {
                    let node = try add(try effect(nested: false))
                    try graph.connect(splitter, bus, to: node, 0)
                    open.append(node)
                }
            case 7, 8 where open.count >= 2:
                let inputs = min(open.count, 2 + next(3))
                let mixer = try add(MultichannelMixer(inputCount: inputs))
                for bus in 0..<inputs { try graph.connect(open.remove(at: next(open.count)), 0, to: mixer, bus) }
                open.append(mixer)
            default:
                open.append(try tone(in: graph))
                count += 1
            }
        }
        let mixer = try graph.addNode(MultichannelMixer(inputCount: open.count))
        for (bus, source) in open.enumerated() { try graph.connect(source, 0, to: mixer, bus) }
        try graph.connect(mixer, to: try graph.addNode(named: "output"))
        return graph
    }

    private mutating func tone(in graph: Graph) throws -> NodeID {
        let tone = try graph.addNode(ToneGenerator(channelCount: 2))
        try graph.setParameter(tone, "freq", 50 + unit() * 5_000)
        try graph.setParameter(tone, "amp", 0.05 + unit() * 0.5)
        return tone
    }

    private mutating func effect(nested: Bool) throws -> any AudioUnit {
        if nested {
            let inner = Graph(registry: BuiltInUnits.registry())
            var previous = try inner.addNode(GraphInput())
            for _ in 0...next(3) {
                let node = try inner.addNode(try effect(nested: false))
                try inner.connect(previous, to: node)
                previous = node
            }
            try inner.connect(previous, to: try inner.addNode(named: "output"))
            return try Subgraph(graph: inner)
        }
        switch next(5) {
        case 0:
            let gain = Gain(channelCount: 2)
            try gain.setParameter(named: "gain", unit() * 12 - 9)
            return gain
        case 1: return ParametricEQ()
        case 2: return Delay()
        case 3: return PeakLimiter()
        default: return Gain(channelCount: 2)
        }
    }
}

/// Renders `graph` for `cycles` cycles of 256 frames on its engine; channel by channel.
private func render(_ graph: Graph, cycles: Int) -> [[Float]] {
    pull(graph, frames: cycles * 256, slice: 256)
}

private func sameBits(_ a: [[Float]], _ b: [[Float]]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.count == $1.count && zip($0, $1).allSatisfy { $0.bitPattern == $1.bitPattern } }
}

@Suite("Parallel rendering", .serialized)
struct ParallelRenderTests {
    @Test("300 random graphs of up to 60 nodes render in parallel bit for bit as on one thread")
    func randomGraphsAreBitIdentical() throws {
        for seed in 0..<300 {
            var serialBuilder = RandomGraphBuilder(seed: UInt64(seed))
            var parallelBuilder = RandomGraphBuilder(seed: UInt64(seed))
            let serial = try serialBuilder.graph(limit: 60, engine: RenderEngine())
            let engine = RenderEngine()
            engine.parallelism = Parallelism(threads: 2, choice: .always)
            let parallel = try parallelBuilder.graph(limit: 60, engine: engine)
            // Observers (taps, meters) see the same frames on either.
            let serialTaps = try serialBuilder.watched.map { node in
                let tap = Recording()
                try serial.addObserver(tap, node: node)
                return tap
            }
            let parallelTaps = try parallelBuilder.watched.map { node in
                let tap = Recording()
                try parallel.addObserver(tap, node: node)
                return tap
            }
            try serial.initialize()
            try parallel.initialize()
            engine.startRendering()
            defer { engine.stopRendering() }
            #expect(engine.workerCount == 1)
            #expect(parallel.scheduleReport?.mode == .parallel)
            let expected = render(serial, cycles: 12)
            let actual = render(parallel, cycles: 12)
            let tapsAgree = zip(serialTaps, parallelTaps).allSatisfy { sameBits([$0.samples], [$1.samples]) && $0.times == $1.times }
            #expect(tapsAgree, "graph \(seed): an observer saw other frames")
            let same = sameBits(actual, expected)
            #expect(same, "graph \(seed) (\(parallel.nodes.count) nodes) differs:\n\(parallel.programListing)")
            if !same { break }
        }
    }

    /// Four branches that overflow (a tone through 32 gains at +24 dB into an EQ boosting
    /// 12 dB) and one clean tone, mixed: `threads` threads, every cycle in parallel.
    private func overloads(threads: Int) throws -> Graph {
        let engine = RenderEngine()
        engine.parallelism = Parallelism(threads: threads, choice: .always)
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256, engine: engine)
        let mixer = try graph.addNode(MultichannelMixer(inputCount: 5))
        for branch in 0..<4 {
            var previous = try graph.addNode(ToneGenerator(channelCount: 2), name: "tone\(branch)")
            try graph.setParameter(previous, "freq", 1000)
            for _ in 0..<32 {
                let gain = try graph.addNode(Gain(channelCount: 2))
                try graph.setParameter(gain, "gain", 24)
                try graph.connect(previous, to: gain)
                previous = gain
            }
            let eq = try graph.addNode(ParametricEQ(), name: "eq\(branch)")
            try graph.setParameter(eq, "band0.type", Float(FilterType.peaking.rawValue))
            try graph.setParameter(eq, "band0.freq", 1000)
            try graph.setParameter(eq, "band0.gain", 12)
            try graph.connect(previous, to: eq)
            try graph.connect(eq, 0, to: mixer, branch)
        }
        let clean = try graph.addNode(ToneGenerator(channelCount: 2), name: "clean")
        try graph.setParameter(clean, "freq", 440)
        try graph.connect(clean, 0, to: mixer, 4)
        try graph.connect(mixer, to: try graph.addNode(named: "output"))
        try graph.initialize()
        return graph
    }

    @Test("non-finite output on the workers is silenced and reported by node, and the rest plays as on one thread")
    func nonFiniteOnWorkers() throws {
        let parallel = try overloads(threads: 2)
        let reported = Mutex<Set<String>>([])
        parallel.engine.addNoticeListener { notice in
            if notice.kind == .nonFiniteOutput, let node = notice.unit?.node { reported.withLock { _ = $0.insert(node) } }
        }
        parallel.engine.startRendering()
        let actual = render(parallel, cycles: 40)
        parallel.engine.stopRendering()
        let expected = render(try overloads(threads: 1), cycles: 40)
        #expect(actual.allSatisfy { $0.allSatisfy(\.isFinite) })
        #expect(sameBits(actual, expected))
        #expect(actual[0].contains { $0 != 0 }, "the clean tone plays")
        #expect(reported.withLock { $0 } == ["eq0", "eq1", "eq2", "eq3"])
    }

    /// A tone through twelve gains and a bare tone, mixed: nearly all the work is on
    /// one path, so sharing it out cannot gain (the prediction's test, at any speed).
    private func lopsidedBranches(threads: Int) throws -> Graph {
        let engine = RenderEngine()
        engine.parallelism = Parallelism(threads: threads, choice: .measured)
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256, engine: engine)
        let mixer = try graph.addNode(MultichannelMixer(inputCount: 2))
        for branch in 0..<2 {
            var previous = try graph.addNode(ToneGenerator(channelCount: 2), name: "tone\(branch)")
            try graph.setParameter(previous, "freq", Float(440 + 110 * branch))
            for _ in 0..<(branch == 0 ? 12 : 0) {
                let gain = try graph.addNode(Gain(channelCount: 2))
                try graph.setParameter(gain, "gain", -0.5)
                try graph.connect(previous, to: gain)
                previous = gain
            }
            try graph.connect(previous, 0, to: mixer, branch)
        }
        try graph.connect(mixer, to: try graph.addNode(named: "output"))
        try graph.initialize()
        return graph
    }

    @Test("a graph whose schedule settles on one thread is compiled again without it, and plays on unchanged")
    func settledScheduleCompilesForOneThread() throws {
        let graph = try lopsidedBranches(threads: 2)
        graph.engine.startRendering()
        defer { graph.engine.stopRendering() }
        #expect(try !graph.compileForOneThreadIfSettled(), "nothing is settled before measuring")
        // On a busy machine the prediction may call for a trial in parallel first, which
        // takes more cycles: render until the measuring settles.
        var actual = render(graph, cycles: 12)
        var cycles = 12
        while graph.scheduleReport?.isSettled != true && cycles < 600 {
            for (channel, samples) in render(graph, cycles: 12).enumerated() { actual[channel] += samples }
            cycles += 12
        }
        #expect(graph.scheduleReport?.isSettled == true)
        #expect(graph.scheduleReport?.mode == .serial, "twelve gains against none gain nothing from a second thread")
        #expect(try graph.compileForOneThreadIfSettled())
        #expect(!graph.programListing.contains("schedule:"), "\(graph.programListing)")
        #expect(graph.scheduleReport?.mode == .serial, "the status still shows what measuring decided")
        #expect(try !graph.compileForOneThreadIfSettled(), "compiled once")
        for (channel, samples) in render(graph, cycles: 12).enumerated() { actual[channel] += samples }
        #expect(sameBits(actual, render(try lopsidedBranches(threads: 1), cycles: cycles + 12)))

        try graph.addNode(Gain(channelCount: 2))
        #expect(graph.programListing.contains("schedule:"), "an edit measures again")
        #expect(graph.scheduleReport?.isSettled == false)
    }

    /// Eight branches (tone, gain, EQ) into a mixer, and a spare tone and gain to connect
    /// and disconnect, on `engine`.
    private func eightBranches(on engine: RenderEngine) throws -> (graph: Graph, gains: [NodeID], spare: NodeID, spareTone: NodeID) {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256, engine: engine)
        let mixer = try graph.addNode(MultichannelMixer(inputCount: 8))
        var gains: [NodeID] = []
        for branch in 0..<8 {
            let tone = try graph.addNode(ToneGenerator(channelCount: 2))
            try graph.setParameter(tone, "freq", Float(200 + 100 * branch))
            let gain = try graph.addNode(Gain(channelCount: 2))
            let eq = try graph.addNode(ParametricEQ())
            try graph.connect(tone, to: gain)
            try graph.connect(gain, to: eq)
            try graph.connect(eq, 0, to: mixer, branch)
            gains.append(gain)
        }
        let spare = try graph.addNode(Gain(channelCount: 2))
        let spareTone = try graph.addNode(ToneGenerator(channelCount: 2))
        try graph.connect(mixer, to: try graph.addNode(named: "output"))
        try graph.initialize()
        return (graph, gains, spare, spareTone)
    }

    /// Allocations and frees on the render thread and on each worker over 1,000 parallel
    /// cycles of `eightBranches`, gains ramping and a spare branch connected and
    /// disconnected meanwhile.
    private func countParallelCycles() throws -> (render: (UInt64, UInt64), workers: [Int: (allocations: UInt64, frees: UInt64)], swaps: Int) {
        let engine = RenderEngine()
        engine.parallelism = Parallelism(threads: 2, choice: .always)
        let counts = Mutex<[Int: (allocations: UInt64, frees: UInt64)]>([:])
        engine.setWorkerHooks(WorkerHooks(
            started: { _ in trellis_allocation_counter_arm() },
            ending: { lane in
                trellis_allocation_counter_disarm()
                let seen = (trellis_allocation_counter_allocations(), trellis_allocation_counter_frees())
                counts.withLock { $0[lane] = seen }
            }))
        let (graph, gains, spare, spareTone) = try eightBranches(on: engine)
        engine.startRendering()
        #expect(engine.workerCount == 1)
        let renderer = RenderThread(graph: graph, capacity: 0, countAllocationsAfterCycles: 50)
        renderer.start()
        renderer.waitForCycles(50)
        let swaps = try renderer.edit(graph, ramping: gains, connecting: spareTone, to: spare, untilCycle: 1_050)
        renderer.stop()
        #expect(graph.scheduleReport?.mode == .parallel)
        engine.stopRendering()
        return ((renderer.allocations, renderer.frees), counts.withLock { $0 }, swaps)
    }

    @Test("the render workers make no allocation and no free over 1,000 parallel cycles, with ramps and program swaps")
    func workersDoNotAllocate() throws {
        // The debug build's unspecialized generic code fills the Swift runtime's type
        // caches on first use, once per process, on whichever thread gets there first:
        // the least of up to three runs is what the code under test does.
        var counted = try countParallelCycles()
        for _ in 1..<3 {
            let quiet = counted.render == (0, 0) && counted.workers.values.allSatisfy { $0 == (0, 0) }
            if quiet { break }
            counted = try countParallelCycles()
        }
        #expect(counted.swaps >= 10)
        #expect(counted.render == (0, 0), "render thread: \(counted.render.0) allocations, \(counted.render.1) frees")
        #expect(counted.workers.count == 1, "every worker reports when it ends")
        for (lane, seen) in counted.workers {
            #expect(seen == (0, 0), "worker \(lane): \(seen.allocations) allocations, \(seen.frees) frees")
        }
    }
}
