import Foundation
import Testing
import TrellisCore
import TrellisGraph
import TrellisMedia
import TrellisUnits

@Suite("Meters")
struct MeterTests {
    /// input -> output (stereo) with a meter on the input node.
    private func meteredGraph() throws -> (Graph, BusMeter) {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
        let input = try graph.addNode(GraphInput(channelCount: 2), name: "in")
        let output = try graph.addNode(GenericOutput(channelCount: 2), name: "out")
        try graph.connect(input, to: output)
        let meter = BusMeter(channelCount: 2)
        try graph.addObserver(meter, node: input)
        try graph.initialize()
        return (graph, meter)
    }

    private func peakDecibels(_ samples: ArraySlice<Float>) -> Float {
        Float(20 * log10(Double(samples.map { abs($0) }.max()!)))
    }

    private func rmsDecibels(_ samples: ArraySlice<Float>) -> Float {
        Float(10 * log10(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)))
    }

    @Test("peak and average power agree with the peak and RMS computed from the samples, window by window")
    func agreesWithSamples() throws {
        let (graph, meter) = try meteredGraph()
        let frames = 30_000
        let left = (0..<frames).map { signal($0) * 0.7 }
        let right = (0..<frames).map { Float(0.3 * sin(2 * Double.pi * 997 * Double($0) / 48_000)) }
        meter.updateMeters()
        func feed(_ range: Range<Int>) {
            drive(graph, frames: range.count, slice: 300, start: Int64(range.lowerBound), input: { buffers, count, start in
                for index in 0..<count {
                    buffers[0][index] = left[Int(start) + index]
                    buffers[1][index] = right[Int(start) + index]
                }
            })
        }
        feed(0..<12_000)
        meter.updateMeters()
        #expect(abs(meter.peakPower(forChannel: 0) - peakDecibels(left[0..<12_000])) < 1e-4)
        #expect(abs(meter.averagePower(forChannel: 0) - rmsDecibels(left[0..<12_000])) < 1e-3)
        #expect(abs(meter.peakPower(forChannel: 1) - peakDecibels(right[0..<12_000])) < 1e-4)
        #expect(abs(meter.averagePower(forChannel: 1) - rmsDecibels(right[0..<12_000])) < 1e-3)
        // The next window holds only what came after the previous update.
        feed(12_000..<frames)
        meter.updateMeters()
        #expect(abs(meter.peakPower(forChannel: 0) - peakDecibels(left[12_000...])) < 1e-4)
        #expect(abs(meter.averagePower(forChannel: 0) - rmsDecibels(left[12_000...])) < 1e-3)
        #expect(abs(meter.averagePower(forChannel: 1) - rmsDecibels(right[12_000...])) < 1e-3)
    }

    @Test("silence and an empty window read -160 dBFS")
    func floor() throws {
        let (graph, meter) = try meteredGraph()
        drive(graph, frames: 1000, input: { buffers, count, _ in buffers.clear(frameCount: count) })
        meter.updateMeters()
        #expect(meter.peakPower(forChannel: 0) == -160)
        #expect(meter.averagePower(forChannel: 1) == -160)
        meter.updateMeters()
        #expect(meter.averagePower(forChannel: 0) == -160)
        #expect(meter.peakPower(forChannel: 5) == -160)
    }

    @Test("a full-scale square wave reads 0 dBFS peak and average")
    func fullScale() throws {
        let (graph, meter) = try meteredGraph()
        drive(graph, frames: 4800, input: { buffers, count, start in
            for channel in 0..<2 {
                for index in 0..<count { buffers[channel][index] = (Int(start) + index) % 2 == 0 ? 1 : -1 }
            }
        })
        meter.updateMeters()
        #expect(meter.peakPower(forChannel: 0) == 0)
        #expect(abs(meter.averagePower(forChannel: 0)) < 1e-6)
    }

    @Test("metering while a render thread runs never tears a window: updates from another thread stay in range")
    func concurrentUpdates() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let tone = try graph.addNode(ToneGenerator(channelCount: 1), name: "tone")
        try graph.setParameter(tone, "amp", 0.5)
        let output = try graph.addNode(GenericOutput(channelCount: 1), name: "out")
        try graph.connect(tone, to: output)
        let meter = BusMeter(channelCount: 1)
        try graph.addObserver(meter, node: tone)
        try graph.initialize()
        let renderer = MediaRenderThread(graph: graph, slice: 256, pacingMicroseconds: 50)
        renderer.start()
        var readings: [(Float, Float)] = []
        for _ in 0..<200 {
            usleep(500)
            meter.updateMeters()
            readings.append((meter.peakPower(forChannel: 0), meter.averagePower(forChannel: 0)))
        }
        renderer.stop()
        // A sine of amplitude 0.5: peak at most -6.02 dB, RMS -9.03 dB over whole periods.
        let full = readings.filter { $0.1 > -100 }
        #expect(full.count > 20)
        #expect(full.allSatisfy { $0.0 <= Float(20 * log10(0.5)) + 1e-4 && $0.1 <= $0.0 })
    }
}
