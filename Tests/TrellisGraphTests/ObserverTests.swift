import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisUnits

/// Keeps what it is shown, for comparing with what the graph outputs.
final class Recording: BusObserver, @unchecked Sendable {
    var samples: [Float] = []
    var times: [Int64] = []
    init() { samples.reserveCapacity(1 << 16) }
    func observe(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        samples.append(contentsOf: UnsafeBufferPointer(start: bus[0], count: frameCount))
        times.append(timeStamp.sampleTime)
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
