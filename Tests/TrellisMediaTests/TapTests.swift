import Foundation
import Testing
import TrellisTestSupport
import TrellisCore
import TrellisGraph
import TrellisMedia
import TrellisUnits

/// input -> gain (0 dB) -> output, mono, initialized; the gain is the tapped node.
private func tapGraph(maximumFrames: Int = 256) throws -> (Graph, NodeID) {
    let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: maximumFrames)
    let input = try graph.addNode(GraphInput(channelCount: 1), name: "in")
    let gain = try graph.addNode(Gain(channelCount: 1), name: "gain")
    let output = try graph.addNode(GenericOutput(channelCount: 1), name: "out")
    try graph.connect(input, to: gain)
    try graph.connect(gain, to: output)
    try graph.initialize()
    return (graph, gain)
}

@Suite("Taps")
struct TapTests {
    @Test("a tap delivers the bus in buffers of its size, in order, with their time stamps, on another thread")
    func deliversInOrder() throws {
        let (graph, gain) = try tapGraph()
        let renderThread = pthread_self()
        let got = Locked<[(Int64, [Float], Int, Bool)]>([])
        let tap = Tap(channelCount: 1, bufferSize: 1000) { buffer in
            let samples = Array(UnsafeBufferPointer(start: buffer.buffers[0], count: buffer.frameCount))
            let elsewhere = pthread_equal(pthread_self(), renderThread) == 0
            got.withLock { $0.append((buffer.timeStamp.sampleTime, samples, buffer.droppedFrames, elsewhere)) }
        }
        try graph.addObserver(tap, node: gain)
        drive(graph, frames: 10_500, slice: 256, input: signalInput)
        #expect(eventually { got.current.count == 10 })
        let buffers = got.current
        #expect(buffers.map(\.0) == (0..<10).map { Int64($0 * 1000) })
        #expect(buffers.flatMap(\.1) == (0..<10_000).map { signal($0) })
        #expect(buffers.allSatisfy { $0.2 == 0 && $0.3 })
        #expect(tap.droppedFrames == 0)
    }

    @Test("a tap with a slow consumer reports dropped frames and never holds up the render thread")
    func slowConsumer() throws {
        let (graph, gain) = try tapGraph()
        let got = Locked<[(Int64, Int, Int)]>([])
        let tap = Tap(channelCount: 1, bufferSize: 512, queueDepth: 2) { buffer in
            got.withLock { $0.append((buffer.timeStamp.sampleTime, buffer.frameCount, buffer.droppedFrames)) }
            usleep(20_000)
        }
        try graph.addObserver(tap, node: gain)
        let renderer = MediaRenderThread(graph: graph, slice: 256, pacingMicroseconds: 500)
        let began = Date()
        renderer.run(cycles: 800)
        // Waiting on the consumer would take 400 buffers x 20 ms = 8 s.
        #expect(Date().timeIntervalSince(began) < 4)
        #expect(tap.droppedFrames > 0)
        #expect(eventually { got.current.count == tap.deliveredBuffers && tap.deliveredBuffers > 0 })
        usleep(100_000)
        let buffers = got.current
        // Each buffer starts where the previous ended plus what was dropped between.
        for (previous, next) in zip(buffers, buffers.dropFirst()) {
            #expect(next.0 == previous.0 + Int64(previous.1) + Int64(next.2))
        }
        let accounted = buffers.count * 512 + buffers.map(\.2).reduce(0, +)
        #expect(accounted <= 800 * 256)
        #expect(buffers.map(\.2).reduce(0, +) <= tap.droppedFrames)
    }

    @Test("removing a tap while rendering is safe and ends its deliveries")
    func removeWhileRendering() throws {
        let (graph, gain) = try tapGraph()
        let count = Locked(0)
        var tap: Tap? = Tap(channelCount: 1, bufferSize: 256) { _ in count.withLock { $0 += 1 } }
        let token = try graph.addObserver(tap!, node: gain)
        let renderer = MediaRenderThread(graph: graph, slice: 256, pacingMicroseconds: 200)
        renderer.start()
        #expect(eventually { count.current > 20 })
        try graph.removeObserver(token)
        tap = nil
        #expect(eventually { !graph.engine.hasPendingProgram })
        graph.engine.collectRetired()
        let after = count.current
        usleep(50_000)
        renderer.stop()
        #expect(count.current == after)
    }
}
