import Foundation
import Testing
import TrellisCore
import TrellisGraph
import TrellisLV2
import TrellisSession
import TrellisUnits

@Suite("A mono plugin in a stereo session")
struct MultiMonoSessionTests {
    /// Two tones of different pitch merged into a stereo pair, through eg-amp (one mono
    /// audio port each way) at -6 dB.
    static func session(ampWidth: String = "", feed: String = "pair -> amp", drain: String = "amp -> out") -> String {
        """
        version: 1
        nodes:
          low: { unit: tone, channels: 1, parameters: { freq: 440, amp: 0.5 } }
          high: { unit: tone, channels: 1, parameters: { freq: 660, amp: 0.5 } }
          pair: { unit: merger, inputs: 2 }
          amp:
            lv2: http://lv2plug.in/plugins/eg-amp\(ampWidth)
            parameters: { gain: -6 }
          out: output
        connections:
          - low -> pair.0
          - high -> pair.1
          - \(feed)
          - \(drain)
        """
    }

    static func registry() -> ComponentRegistry {
        let registry = testRegistry()
        LV2Components.addResolver(to: registry, world: LV2World())
        return registry
    }

    static func render(_ session: LoadedSession, frames: Int) -> [[Float]] {
        let graph = session.graph
        let output = AudioBufferList(channelCount: 2, frameCapacity: graph.maximumFrames)
        var result: [[Float]] = [[], []]
        var done = 0
        while done < frames {
            let count = min(graph.maximumFrames, frames - done)
            _ = graph.engine.render(frameCount: count, timeStamp: AudioTimeStamp(sampleTime: Int64(done)), input: .empty, output: output[0])
            for channel in 0..<2 { result[channel] += output.samples(channel: channel, frameCount: count) }
            done += count
        }
        return result
    }

    static func sine(_ frequency: Double, frames: Int, amplitude: Float) -> [Float] {
        (0..<frames).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / 48_000)) }
    }

    @Test("each channel goes through its own instance: the left is the 440 Hz tone at -6 dB, the right the 660 Hz one")
    func eachChannelThroughItsOwnInstance() throws {
        let folder = try temporaryFolder()
        let path = folder + "/stereo.yaml"
        try Self.session().write(toFile: path, atomically: false, encoding: .utf8)
        let session = try SessionLoader.load(path: path, registry: Self.registry())
        let amp = try session.graph.node(named: "amp").unit
        #expect((amp as? MultiMonoUnit)?.instances.count == 2)
        let out = Self.render(session, frames: 4_800)
        let gain = powf(10, -6 * 0.05)
        let left = Self.sine(440, frames: 4_800, amplitude: 0.5 * gain), right = Self.sine(660, frames: 4_800, amplitude: 0.5 * gain)
        #expect(zip(out[0], left).map { abs($0 - $1) }.max()! < 1e-5)
        #expect(zip(out[1], right).map { abs($0 - $1) }.max()! < 1e-5)
    }

    @Test("a save writes the node as written, and the saved session loads as one instance per channel again")
    func saveRoundTrip() throws {
        let folder = try temporaryFolder()
        let path = folder + "/stereo.yaml"
        try Self.session().write(toFile: path, atomically: false, encoding: .utf8)
        let session = try SessionLoader.load(path: path, registry: Self.registry())
        try session.graph.setParameter(session.graph.node(named: "amp").id, "gain", -12)
        try session.save()
        let saved = try SessionParser.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
        let node = try #require(saved.graph.nodes.first { $0.name == "amp" })
        #expect(node.channels == nil)
        #expect(node.parameters.map { "\($0.name)=\($0.value)" } == ["gain=-12"])
        let again = try SessionLoader.load(path: path, registry: Self.registry())
        let amp = try again.graph.node(named: "amp").unit
        #expect((amp as? MultiMonoUnit)?.instances.count == 2)
        #expect(try amp.parameterValue(ParameterAddress(0)) == -12)
    }

    @Test("channels: 1 keeps one instance, which a converting connection feeds the channels' average")
    func explicitMonoKeepsOneInstance() throws {
        let folder = try temporaryFolder()
        let path = folder + "/mono.yaml"
        try Self.session(ampWidth: "\n    channels: 1", feed: "{ from: pair, to: amp, convert: true }", drain: "{ from: amp, to: out, convert: true }").write(toFile: path, atomically: false, encoding: .utf8)
        let session = try SessionLoader.load(path: path, registry: Self.registry())
        #expect(try session.graph.node(named: "amp").unit is LV2PluginUnit)
        let out = Self.render(session, frames: 4_800)
        let gain = powf(10, -6 * 0.05)
        let low = Self.sine(440, frames: 4_800, amplitude: 0.5), high = Self.sine(660, frames: 4_800, amplitude: 0.5)
        let average = zip(low, high).map { ($0 + $1) / 2 * gain }
        #expect(zip(out[0], average).map { abs($0 - $1) }.max()! < 1e-5)
        #expect(out[0] == out[1])
    }
}
