import CAllocationCounter
import Foundation
import Synchronization
import Testing
import TrellisAudioFile
import TrellisCore
import TrellisEngine
import TrellisGraph
@testable import TrellisJACK
import TrellisLV2
import TrellisMedia
import TrellisUnits

/// The real engine as a backend sees it, through its plain render entry, with the JACK
/// process thread's heap calls counted over a window of cycles.
final class CountingEngineSource: RenderSource, @unchecked Sendable {
    let entry: RenderEntry
    let armAt: Int
    let window: Int
    let cycles = Atomic<Int>(0)
    let allocations = Atomic<Int>(-1)
    let frees = Atomic<Int>(-1)

    init(engine: RenderEngine, armAt: Int, window: Int) {
        entry = engine.renderEntry!
        self.armAt = armAt
        self.window = window
    }

    func render(frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers) -> RenderStatus {
        let cycle = cycles.wrappingAdd(1, ordering: .relaxed).oldValue
        if cycle == armAt { trellis_allocation_counter_arm() }
        var call = BackendCycle(frameCount: frameCount, timeStamp: timeStamp, input: input, output: output)
        let status = entry.render(&call)
        if cycle == armAt + window {
            trellis_allocation_counter_disarm()
            frees.store(Int(trellis_allocation_counter_frees()), ordering: .relaxed)
            allocations.store(Int(trellis_allocation_counter_allocations()), ordering: .releasing)
        }
        return status
    }
}

extension JACKIntegration {
    @Suite("The engine on a real jackd")
    struct EngineOnJACK {
        @Test("10,000 JACK cycles of a graph with an LV2 plugin, a mixer, an EQ and a file player allocate and free nothing, with live edits and parameter ramps meanwhile")
        func engineCyclesAllocateNothing() throws {
            // 64-frame periods at 192 kHz: 10,000 cycles in about 3.3 s.
            let server = try JACKServer.startPrivateServer(name: TestServer.uniqueName(), sampleRate: 192_000, period: 64)
            defer { server.stop() }
            let directory = NSTemporaryDirectory() + "trellis-engine-alloc-\(getpid())"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let loop = directory + "/loop.wav"
            let sine = (0..<19_200).map { Float(0.25 * sin(2 * Double.pi * 440 * Double($0) / 192_000)) }
            try AudioFileWriter(path: loop, sampleType: .float32, sampleRate: 192_000, channelCount: 2).write(channels: [sine, sine])

            let registry = BuiltInUnits.registry()
            LV2Components.addResolver(to: registry, world: LV2World())
            let graph = Graph(registry: registry, sampleRate: 192_000, maximumFrames: 64)
            let player = FilePlayer(channelCount: 2)
            try player.load(path: loop)
            player.loopCount = -1
            let playerNode = try graph.addNode(player, name: "player")
            // eg-amp is mono: one instance per channel, as a stereo chain asks.
            let ampURI = "lv2:http://lv2plug.in/plugins/eg-amp"
            let amp = try graph.addNode(
                MultiMonoUnit(width: 2, first: try registry.instantiate(named: ampURI), another: { try registry.instantiate(named: ampURI) }),
                name: "amp")
            let eq = try graph.addNode(named: "eq", name: "eq")
            let mixer = try graph.addNode(MultichannelMixer(inputCount: 2), name: "mix")
            let output = try graph.addNode(named: "output")
            try graph.connect(playerNode, to: amp)
            try graph.connect(amp, to: eq)
            try graph.connect(eq, to: mixer)
            try graph.connect(mixer, to: output)

            let source = CountingEngineSource(engine: graph.engine, armAt: 500, window: 10_000)
            var configuration = JACKConfiguration(clientName: "trellis", serverName: server.name, inputChannels: 0, outputChannels: 2)
            configuration.midiInputs = 0
            let head = try JACKHeadNode(configuration: configuration, source: source) { settings in
                try graph.prepare(frames: settings.maximumFrames, sampleRate: settings.sampleRate)
            }
            defer { head.stop() }
            try head.start()
            try player.prepare()
            #expect(player.waitUntilReady())
            try player.play()

            // Edits and ramps on the control side while the window runs.
            var round = 0
            while source.allocations.load(ordering: .acquiring) < 0 {
                round += 1
                try graph.setParameter(amp, "gain", round % 2 == 0 ? -6 : 0, rampFrames: 256)
                try graph.setParameter(eq, "band0.gain", round % 2 == 0 ? 3 : -3, rampFrames: 512)
                let extra = try graph.addNode(named: "gain", name: "extra\(round)")
                try graph.removeNode(extra)
                usleep(20_000)
                if round > 1_500 { break }
            }
            #expect(source.cycles.load(ordering: .relaxed) > 10_500, "the window of 10,000 cycles completed")
            #expect(source.allocations.load(ordering: .acquiring) == 0)
            #expect(source.frees.load(ordering: .acquiring) == 0)
            #expect(round > 10, "edits ran during the window (\(round) rounds)")
        }
    }
}
