import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisUnits

/// Keeps the first channel it is shown and each slice's time, up to its capacity, for
/// comparing with what the graph outputs.
final class Recording: BusObserver, @unchecked Sendable {
    struct Memory {
        let samples: UnsafeMutablePointer<Float>
        let times: UnsafeMutablePointer<Int64>
        let capacity: Int
        var sampleCount = 0
        var timeCount = 0
    }
    private let memory: UnsafeMutablePointer<Memory>

    init(capacity: Int = 1 << 18) {
        memory = .allocate(capacity: 1)
        memory.initialize(to: Memory(samples: .allocate(capacity: capacity), times: .allocate(capacity: capacity), capacity: capacity))
    }

    deinit {
        memory.pointee.samples.deallocate()
        memory.pointee.times.deallocate()
        memory.deallocate()
    }

    var samples: [Float] { Array(UnsafeBufferPointer(start: memory.pointee.samples, count: memory.pointee.sampleCount)) }
    var times: [Int64] { Array(UnsafeBufferPointer(start: memory.pointee.times, count: memory.pointee.timeCount)) }

    /// Forgets what it kept. Thread: the test's, while nothing renders.
    func clear() {
        memory.pointee.sampleCount = 0
        memory.pointee.timeCount = 0
    }

    var observerKernel: ObserverKernel {
        ObserverKernel(state: UnsafeMutableRawPointer(memory)) { state, slice in
            let memory = state.assumingMemoryBound(to: Memory.self)
            let slice = slice.assumingMemoryBound(to: ObservedSlice.self).pointee
            let count = min(slice.frameCount, memory.pointee.capacity - memory.pointee.sampleCount)
            (memory.pointee.samples + memory.pointee.sampleCount).update(from: slice.bus[0], count: count)
            memory.pointee.sampleCount += count
            if memory.pointee.timeCount < memory.pointee.capacity {
                memory.pointee.times[memory.pointee.timeCount] = slice.timeStamp.sampleTime
                memory.pointee.timeCount += 1
            }
        }
    }
}

@Suite("Observers")
struct ObserverTests {
    @Test("an observer on a node's output sees every frame the node produced, in order")
    func observerSeesEveryFrame() throws {
        let (graph, ids) = try chain(gains: [-6, -6])
        let recording = Recording()
        try graph.addObserver(recording, node: ids[1])
        try graph.initialize()
        #expect(graph.programListing.contains("observe"))
        _ = pull(graph, frames: 1000, slice: 250)
        let expected = sine(frequency: 440, amplitude: 0.5 * decibels(-6), frames: 1000)
        #expect(recording.samples.count == 1000)
        #expect(maxDifference(recording.samples, expected) < 1e-6)
        #expect(recording.times == [0, 250, 500, 750])
    }

    @Test("an observer on the output node sees what the backend gets")
    func observerOnOutput() throws {
        let (graph, ids) = try chain(gains: [-3])
        let recording = Recording()
        try graph.addObserver(recording, node: ids.last!)
        try graph.initialize()
        let out = pull(graph, frames: 512)
        #expect(recording.samples == out[0])
    }

    @Test("a removed observer is no longer shown anything")
    func removedObserver() throws {
        let (graph, ids) = try chain(gains: [0])
        let recording = Recording()
        let token = try graph.addObserver(recording, node: ids[1])
        try graph.initialize()
        _ = pull(graph, frames: 256)
        try graph.removeObserver(token)
        _ = pull(graph, frames: 256, start: 256)
        #expect(recording.samples.count == 256)
    }

    @Test("an observer on a bus that does not exist is refused")
    func observerOnMissingBus() throws {
        let (graph, ids) = try chain(gains: [0])
        #expect { try graph.addObserver(Recording(), node: ids[1], bus: 2) } throws: { "\($0)".contains("gain1 output 2 does not exist") }
    }
}
