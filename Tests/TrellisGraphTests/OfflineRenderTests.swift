import Foundation
import Testing
import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisOffline
import TrellisUnits

@Suite("Offline render")
struct OfflineRenderTests {
    private func temporaryPath(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-offline-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    @Test("a tone rendered through a gain into a float WAV file gives the expected samples")
    func toneToWAV() throws {
        let (graph, _) = try chain(gains: [-6], frequency: 1000, amplitude: 0.5)
        try graph.initialize()
        let path = temporaryPath("tone.wav")
        let written = try OfflineRenderer(graph: graph, sliceFrames: 333).render(frameCount: 48_000, to: path)
        #expect(written == 48_000)
        let reader = try AudioFileReader(path: path)
        #expect(reader.info.frameCount == 48_000)
        #expect(reader.info.channelCount == 2)
        #expect(reader.info.sampleRate == 48_000)
        let channels = try reader.readAll()
        let expected = sine(frequency: 1000, amplitude: 0.5 * decibels(-6), frames: 48_000)
        #expect(maxDifference(channels[0], expected) < 2e-5)
        #expect(channels[0] == channels[1])
    }

    @Test("an input file is carried through the graph to the output file")
    func fileThroughGraph() throws {
        let source = temporaryPath("in.wav")
        let ramp = (0..<10_000).map { Float($0 % 2_000) / 2_000 - 0.5 }
        let writer = try AudioFileWriter(path: source, sampleType: .float32, sampleRate: 44_100, channelCount: 1)
        try writer.write(channels: [ramp])
        try writer.close()

        let graph = Graph(registry: BuiltInUnits.registry(), sampleRate: 44_100, maximumFrames: 512)
        let input = try graph.addNode(GraphInput(channelCount: 1))
        let gain = try graph.addNode(Gain(channelCount: 1))
        try graph.setParameter(gain, "gain", 20 * log10(2))
        let output = try graph.addNode(GenericOutput(channelCount: 1))
        try graph.connect(input, to: gain)
        try graph.connect(gain, to: output)
        try graph.initialize()
        let destination = temporaryPath("out.wav")
        try OfflineRenderer(graph: graph).render(frameCount: 10_000, to: destination, input: try AudioFileReader(path: source))
        let result = try AudioFileReader(path: destination).readAll()[0]
        #expect(maxDifference(result, ramp.map { $0 * 2 }) < 1e-5)
    }

    @Test("an input file at another rate than the graph is converted to the graph's rate")
    func inputRateConversion() throws {
        let source = temporaryPath("in.wav")
        let writer = try AudioFileWriter(path: source, sampleType: .float32, sampleRate: 22_050, channelCount: 1)
        try writer.write(channels: [(0..<22_050).map { Float(0.5 * sin(2 * Double.pi * 1_000 * Double($0) / 22_050)) }])
        try writer.close()
        let graph = Graph(registry: BuiltInUnits.registry())
        let input = try graph.addNode(GraphInput(channelCount: 1))
        let output = try graph.addNode(GenericOutput(channelCount: 1))
        try graph.connect(input, to: output)
        try graph.initialize()
        let path = temporaryPath("out.wav")
        #expect(try OfflineRenderer(graph: graph).render(frameCount: 48_000, to: path, input: try AudioFileReader(path: source)) == 48_000)
        let out = try AudioFileReader(path: path).readAll()[0]
        // 1 kHz at 48 kHz: every frame is the sine's value there, filter ripple aside.
        let middle = 4_800..<43_200
        let worst = middle.map { abs(Double(out[$0]) - 0.5 * sin(2 * Double.pi * 1_000 * Double($0) / 48_000)) }.max()!
        #expect(worst < 1e-4, "worst error \(worst)")
    }

    /// A stereo file of `frames` frames whose channels differ, and the graph input -> gain x2 -> output.
    private func doublingGraph(frames: Int, maximumFrames: Int) throws -> (Graph, String, [[Float]]) {
        let source = temporaryPath("in.wav")
        let left = (0..<frames).map { Float($0 % 1_000) / 1_000 - 0.5 }
        let right = (0..<frames).map { Float($0 % 777) / -777 + 0.25 }
        let writer = try AudioFileWriter(path: source, sampleType: .float32, sampleRate: 48_000, channelCount: 2)
        try writer.write(channels: [left, right])
        try writer.close()
        let graph = Graph(registry: BuiltInUnits.registry(), sampleRate: 48_000, maximumFrames: maximumFrames)
        let input = try graph.addNode(GraphInput(channelCount: 2))
        let gain = try graph.addNode(Gain(channelCount: 2))
        try graph.setParameter(gain, "gain", 20 * log10(2))
        let output = try graph.addNode(GenericOutput(channelCount: 2))
        try graph.connect(input, to: gain)
        try graph.connect(gain, to: output)
        try graph.initialize()
        return (graph, source, [left, right])
    }

    @Test("a file many chunks long arrives frame-exact through odd-sized slices, with silence after its end")
    func longFileThroughChunks() throws {
        let (graph, source, channels) = try doublingGraph(frames: 100_003, maximumFrames: 512)
        let destination = temporaryPath("out.wav")
        let written = try OfflineRenderer(graph: graph, sliceFrames: 333)
            .render(frameCount: 120_000, to: destination, input: try AudioFileReader(path: source))
        #expect(written == 120_000)
        let result = try AudioFileReader(path: destination).readAll()
        for channel in 0..<2 {
            #expect(Array(result[channel][..<100_003]) == channels[channel].map { $0 * 2 })
            #expect(result[channel][100_003...].allSatisfy { $0 == 0 })
        }
    }

    @Test("a graph set up for 128-frame periods, prepared for offline work, takes 4,096-frame slices and renders the same samples")
    func preparedForOffline() throws {
        let (graph, source, channels) = try doublingGraph(frames: 30_000, maximumFrames: 128)
        try OfflineRenderer.prepareForOffline(graph)
        #expect(graph.maximumFrames == OfflineRenderer.preferredSliceFrames)
        #expect(OfflineRenderer(graph: graph).sliceFrames == OfflineRenderer.preferredSliceFrames)
        let destination = temporaryPath("out.wav")
        try OfflineRenderer(graph: graph).render(frameCount: 30_000, to: destination, input: try AudioFileReader(path: source))
        let result = try AudioFileReader(path: destination).readAll()
        #expect(result[0] == channels[0].map { $0 * 2 })
        #expect(result[1] == channels[1].map { $0 * 2 })
    }
}
