import Foundation
import Testing
import TrellisControl
import TrellisCore
import TrellisSession
import TrellisUnits

@Suite("A mono plugin added to a stereo session")
struct MultiMonoControlTests {
    static let stereoSession = """
        version: 1
        nodes:
          low: { unit: tone, channels: 1, parameters: { freq: 440, amp: 0.5 } }
          high: { unit: tone, channels: 1, parameters: { freq: 660, amp: 0.5 } }
          pair: { unit: merger, inputs: 2 }
          out: output
        connections:
          - low -> pair.0
          - high -> pair.1
          - pair -> out
        """

    @Test("add with channels=2 runs the plugin once per channel, and a save keeps the width")
    func addTwoInstances() throws {
        let rig = try ControlRig(session: Self.stereoSession)
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("add amp lv2:http://lv2plug.in/plugins/eg-amp channels=2 gain=-6") == "ok amp")
        #expect(try client.request("disconnect pair out ; connect pair amp ; connect amp out") == "ok")
        #expect((try rig.graph.node(named: "amp").unit as? MultiMonoUnit)?.instances.count == 2)

        let graph = rig.graph
        let output = AudioBufferList(channelCount: 2, frameCapacity: graph.maximumFrames)
        var left: [Float] = [], right: [Float] = []
        while left.count < 4_800 {
            _ = graph.engine.render(frameCount: graph.maximumFrames, timeStamp: AudioTimeStamp(sampleTime: Int64(left.count)), input: .empty, output: output[0])
            left += output.samples(channel: 0, frameCount: graph.maximumFrames)
            right += output.samples(channel: 1, frameCount: graph.maximumFrames)
        }
        let gain = powf(10, -6 * 0.05)
        func sine(_ frequency: Double, _ frame: Int) -> Float { 0.5 * gain * Float(sin(2 * Double.pi * frequency * Double(frame) / 48_000)) }
        #expect((0..<4_800).map { abs(left[$0] - sine(440, $0)) }.max()! < 1e-5)
        #expect((0..<4_800).map { abs(right[$0] - sine(660, $0)) }.max()! < 1e-5)

        let path = rig.folder + "/saved.yaml"
        #expect(try client.request("save \(path)") == "ok \(path)")
        let saved = try SessionParser.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
        #expect(saved.graph.nodes.first { $0.name == "amp" }?.channels == 2)
        let again = try SessionLoader.load(path: path, registry: controlRegistry())
        #expect((try again.graph.node(named: "amp").unit as? MultiMonoUnit)?.instances.count == 2)
    }
}
