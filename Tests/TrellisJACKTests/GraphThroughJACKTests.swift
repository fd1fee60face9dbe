import Foundation
import Testing
import TrellisAudioFile
import TrellisCore
import TrellisEngine
import TrellisGraph
@testable import TrellisJACK
import TrellisOffline
import TrellisUnits

extension JACKIntegration {
    @Suite("A real graph on JACK")
    struct GraphThroughJACK {
        /// input -> gain(-6 dB) -> 3-band EQ -> output, stereo.
        static func makeGraph() throws -> Graph {
            let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
            let input = try graph.addNode(GraphInput(channelCount: 2))
            let gain = try graph.addNode(named: "gain")
            try graph.setParameter(gain, "gain", -6)
            let eq = try graph.addNode(named: "eq")
            try graph.setParameter(eq, "band0.type", 1)  // low shelf
            try graph.setParameter(eq, "band0.freq", 200)
            try graph.setParameter(eq, "band0.gain", 4)
            try graph.setParameter(eq, "band1.freq", 1_000)
            try graph.setParameter(eq, "band1.gain", -5)
            try graph.setParameter(eq, "band1.q", 2)
            try graph.setParameter(eq, "band2.type", 2)  // high shelf
            try graph.setParameter(eq, "band2.freq", 4_000)
            try graph.setParameter(eq, "band2.gain", 3)
            let output = try graph.addNode(named: "output")
            try graph.connect(input, to: gain)
            try graph.connect(gain, to: eq)
            try graph.connect(eq, to: output)
            return graph
        }

        /// What the same graph, fresh, makes of `input` on one channel, driven by the
        /// offline backend from a file into a file, in JACK's 256-frame cycles.
        static func expected(for input: [Float], channel: Int) throws -> [Float] {
            let folder = NSTemporaryDirectory() + "trellis-backends-\(getpid())-\(channel)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var channels = [[Float]](repeating: [Float](repeating: 0, count: input.count), count: 2)
            channels[channel] = input
            let inputWriter = try AudioFileWriter(path: folder + "/in.wav", sampleType: .float32, sampleRate: 48_000, channelCount: 2)
            try inputWriter.write(channels: channels)
            try inputWriter.close()

            let graph = try makeGraph()
            try graph.initialize()
            let writer = try AudioFileWriter(path: folder + "/out.wav", sampleType: .float32, sampleRate: 48_000, channelCount: 2)
            let job = OfflineJob(
                frameCount: input.count, sliceFrames: 256, inputs: [FileInput(reader: try AudioFileReader(path: folder + "/in.wav"))],
                inputChannels: 2, outputChannels: 2, writer: writer)
            let driver = GraphDriver(graph: graph) { source, prepare in
                OfflineBackend(source: source, settings: BackendSettings(maximumFrames: 256, sampleRate: 48_000), prepare: prepare, job: job)
            }
            try driver.start()
            driver.stop()
            try writer.close()
            #expect(driver.backend.framesRendered == input.count)
            return try AudioFileReader(path: folder + "/out.wav").readAll()[channel]
        }

        @Test("one graph driven through both backends: a sine played into JACK comes out as the offline backend renders it from a file")
        func signalThroughRealGraph() throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let configuration = JACKConfiguration(clientName: "trellis", serverName: server.name, inputChannels: 2, outputChannels: 2)
            let driver = try GraphDriver(graph: try Self.makeGraph()) { source, prepare throws(JACKError) in
                try JACKHeadNode(configuration: configuration, source: source, prepare: prepare)
            }
            defer { driver.stop() }
            try driver.start()
            #expect(driver.backend.settings == BackendSettings(maximumFrames: 256, sampleRate: 48_000))
            let head = driver.backend
            let player = try TestPlayer(server: server.name, frequencies: [440, 3_000])
            defer { player.close() }
            let recorder = try TestRecorder(server: server.name, channels: 4, capacity: 24_000)
            defer { recorder.close() }
            for channel in 1...2 {
                try player.connect("player:out_\(channel)", "recorder:in_\(channel)")
                try player.connect("player:out_\(channel)", "trellis:in_\(channel)")
                try player.connect("trellis:out_\(channel)", "recorder:in_\(2 + channel)")
            }
            var failures: [String] = []
            for _ in 0..<3 {
                player.playing.store(false, ordering: .relaxed)
                usleep(100_000)
                let xruns = head.status().xrunCount
                try recorder.record { player.playing.store(true, ordering: .relaxed) }
                failures = []
                for channel in 0..<2 {
                    let reference = recorder.samples(channel: channel)
                    let output = recorder.samples(channel: 2 + channel)
                    guard let alignment = alignedError(recorded: output, expected: try Self.expected(for: reference, channel: channel)) else {
                        failures.append("channel \(channel): no sound came through")
                        continue
                    }
                    if alignment.maximumError > 1e-6 { failures.append("channel \(channel): error \(alignment.maximumError) at lag \(alignment.lag)") }
                    if alignment.compared <= 12_000 { failures.append("channel \(channel): only \(alignment.compared) frames compared") }
                }
                // A window the server glitched (an xrun on this shared machine) is recorded again.
                if failures.isEmpty || head.status().xrunCount == xruns { break }
            }
            #expect(failures.isEmpty, "\(failures)")
        }
    }
}
