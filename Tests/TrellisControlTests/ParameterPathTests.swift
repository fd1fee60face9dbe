import Foundation
import Testing
import TrellisControl
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisTestSupport

@Suite("One path for a parameter change")
struct ParameterPathTests {
    enum Path: String, CaseIterable, Sendable {
        case ctl, osc, midiLearn, automation, swiftAPI
    }

    static let slice = 256
    static let slices = 12
    /// The change lands on the first frame of this slice.
    static let changeSlice = 5
    static let target: Float = -6
    /// Every path ramps over the 32 frames a MIDI controller's change takes.
    static let rampFrames = 32
    static let rampText = "ramp=\(Double(rampFrames) * 1000 / 48_000)"

    /// Renders the tone session's `trim` node going from 0 dB to -6 dB over 32 frames
    /// from frame 1280, the change made through `path` (none when nil), with the engine
    /// rendering as a backend runs it.
    static func render(changingThrough path: Path?) throws -> [Float] {
        let rig = try ControlRig()
        defer { rig.stop() }
        let graph = rig.graph
        let trim = try #require(graph.nodes.first { $0.name == "trim" })
        let frame = Int64(changeSlice * slice)
        let controller = OneMIDIMessage([0xB0, 7, 127], frame: 0, armed: false)
        switch path {
        case .midiLearn?:
            try graph.map(ControllerMapping(port: nil, channel: nil, controller: 7, node: trim.id, parameter: "gain", minimum: -40, maximum: target))
        case .automation?:
            let points = [AutomationPoint(frame: 0, value: 0), AutomationPoint(frame: frame, value: 0),
                          AutomationPoint(frame: frame + Int64(rampFrames), value: target)]
            try graph.setAutomation(trim.id, "gain", ParameterLane(points: points))
            graph.engine.changeTransport(.play)
        default:
            break
        }
        let secret = ControlSecret.random()
        let osc = try OSCServer(port: 0, dispatcher: rig.dispatcher, secret: secret)
        osc.start()
        defer { osc.stop() }

        graph.engine.startRendering()
        defer { graph.engine.stopRendering() }
        let output = AudioBufferList(channelCount: 1, frameCapacity: slice)
        var samples: [Float] = []
        for index in 0..<slices {
            if index == changeSlice {
                switch path {
                case .ctl?: #expect(try rig.ask("set trim gain \(target) \(rampText)") == "ok \(Int(target))")
                case .osc?:
                    let reply = try OSCTestClient(port: osc.port).request("/trellis/set", [.string(secret.text), .string("trim"), .string("gain"), .float(target), .string(rampText)])
                    #expect(reply == ["/trellis/set", "ok", "\(Int(target))"])
                case .swiftAPI?: try trim.unit.setParameter(try trim.unit.parameter(named: "gain").address, target, rampFrames: rampFrames)
                case .midiLearn?: controller.isArmed = true
                case .automation?, nil: break
                }
            }
            let status = graph.engine.render(
                frameCount: slice, timeStamp: AudioTimeStamp(sampleTime: Int64(index * slice)), input: .empty, output: output[0],
                midiInput: controller.view)
            #expect(status == .ok)
            controller.isArmed = false
            samples += output.samples(channel: 0, frameCount: slice)
        }
        let value = try trim.unit.parameterValue(trim.unit.parameter(named: "gain").address)
        #expect(value == (path == nil ? 0 : target), "the value reads back from the one store")
        return samples
    }

    @Test("a change through ctl, OSC, MIDI learn, automation and the Swift API lands on the same frame with the same samples")
    func everyPathSameResult() throws {
        var results: [Path: [Float]] = [:]
        for path in Path.allCases { results[path] = try Self.render(changingThrough: path) }
        let reference = try #require(results[.swiftAPI])
        for path in Path.allCases {
            let other = try #require(results[path])
            let differs = zip(other, reference).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(differs == nil, "\(path.rawValue) differs from the Swift API from frame \(differs?.offset ?? 0): \(differs?.element.0 ?? 0) against \(differs?.element.1 ?? 0)")
        }

        // Against the math: the tone as it is up to the change's frame, 6 dB down once the
        // gain's smoothing settled, and the first changed sample exactly at the change.
        let frame = Self.changeSlice * Self.slice
        let unchanged = try Self.render(changingThrough: nil)
        let first = zip(reference, unchanged).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(first == frame, "the first changed frame")
        let scale = powf(10, Self.target / 20)
        let settled = (frame + 1024)..<reference.count
        #expect(settled.allSatisfy { abs(reference[$0] - unchanged[$0] * scale) < 1e-5 })
    }
}
