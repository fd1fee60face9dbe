import CAllocationCounter
import Foundation
import Synchronization
import TrellisCore
import TrellisGraph

/// Renders a graph's engine on its own thread like a live backend: cycle after cycle,
/// a short sleep between them, nobody waiting on disk threads. Measures the longest
/// cycle and, once armed, counts the thread's allocations.
final class MediaRenderThread: @unchecked Sendable {
    let graph: Graph
    let slice: Int
    let pacing: UInt32
    let countAfter: Int
    private let stopFlag = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private(set) var cycles = 0
    private(set) var longestCycleNanoseconds: UInt64 = 0
    private(set) var allocations: UInt64 = 0
    private(set) var frees: UInt64 = 0
    private(set) var failedCycles = 0
    private var limit = Int.max

    init(graph: Graph, slice: Int = 256, pacingMicroseconds: UInt32 = 0, countAllocationsAfterCycles countAfter: Int = .max) {
        self.graph = graph
        self.slice = slice
        pacing = pacingMicroseconds
        self.countAfter = countAfter
    }

    func start() {
        graph.engine.startRendering()
        Thread { [self] in loop() }.start()
    }

    func stop() {
        stopFlag.store(true, ordering: .releasing)
        done.wait()
        graph.engine.stopRendering()
    }

    /// Renders `cycles` cycles and returns when they are done.
    func run(cycles count: Int) {
        limit = count
        start()
        done.wait()
        graph.engine.stopRendering()
    }

    private func loop() {
        let channels = graph.plan?.outputChannelCount ?? 2
        let output = AudioBufferList(channelCount: channels, frameCapacity: slice)
        let view = output[0]
        let engine = graph.engine
        var armed = false
        var frames: Int64 = 0
        while !stopFlag.load(ordering: .acquiring) && cycles < limit {
            if !armed && cycles == countAfter {
                trellis_allocation_counter_arm()
                armed = true
            }
            let began = HostClock.now()
            let status = engine.render(frameCount: slice, timeStamp: AudioTimeStamp(sampleTime: frames, hostTime: began), input: .empty, output: view)
            let took = HostClock.now() - began
            if took > longestCycleNanoseconds { longestCycleNanoseconds = took }
            if status != .ok { failedCycles += 1 }
            frames += Int64(slice)
            cycles += 1
            if pacing > 0 { usleep(pacing) }
        }
        if armed {
            trellis_allocation_counter_disarm()
            allocations = trellis_allocation_counter_allocations()
            frees = trellis_allocation_counter_frees()
        }
        done.signal()
    }
}
