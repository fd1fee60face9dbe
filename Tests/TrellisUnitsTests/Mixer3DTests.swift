import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("3D mixer")
struct Mixer3DTests {
    func makeMixer(outputChannels: Int = 2) throws -> UnitHarness {
        let mixer = Mixer3D(inputCount: 1)
        try mixer.setFormat(.canonical(sampleRate: 48_000, channelCount: outputChannels), scope: .output, element: 0)
        let harness = try UnitHarness(mixer, frameCapacity: 64)
        harness.fillInput(bus: 0, channel: 0, with: Array(repeating: 1, count: 64)[...])
        return harness
    }

    /// Moves input 0 and returns each output channel's gain once the move has landed.
    func speakerGains(_ harness: UnitHarness, _ settings: [String: Float]) throws -> [Double] {
        for (name, value) in settings {
            let index = try harness.unit.index(of: try harness.unit.parameter(named: name).address)
            harness.unit.applyParameterEvent(index: index, value: value, rampFrames: 1)
        }
        harness.render(frames: 64)
        return (0..<harness.outputs[0].channelCount).map { Double(harness.output(channel: $0, frames: 64)[63]) }
    }

    /// OpenAL 1.1 specification, section 3.4, with the source gain clamped to 0...1.
    func openALGain(_ model: DistanceModel, distance: Double, reference: Double, maximum: Double, rolloff: Double) -> Double {
        var d = distance
        switch model {
        case .inverseClamped, .linearClamped, .exponentialClamped: d = min(max(d, reference), maximum)
        case .linear: d = min(d, maximum)
        default: break
        }
        let gain: Double
        switch model {
        case .none: gain = 1
        case .inverse, .inverseClamped: gain = reference / (reference + rolloff * (d - reference))
        case .linear, .linearClamped: gain = 1 - rolloff * (d - reference) / (maximum - reference)
        case .exponential, .exponentialClamped: gain = pow(d / reference, -rolloff)
        }
        return min(1, max(0, gain))
    }

    @Test("the gain of each distance model equals the OpenAL formula", arguments: DistanceModel.allCases)
    func distanceModels(model: DistanceModel) throws {
        let harness = try makeMixer()
        for (name, value) in ["model": Float(model.rawValue), "reference": 2, "maxDistance": 20, "rolloff": 0.8] {
            try harness.unit.setParameter(named: name, value)
        }
        for distance in [0.5, 1, 2, 3, 7, 15, 20, 40, 100] {
            let gains = try speakerGains(harness, ["in0.distance": Float(distance)])
            let expected = openALGain(model, distance: distance, reference: 2, maximum: 20, rolloff: 0.8) * 0.5.squareRoot()
            #expect(abs(gains[0] - expected) < 1e-6, "\(model.name) at \(distance) m")
            #expect(abs(gains[1] - expected) < 1e-6, "\(model.name) at \(distance) m")
        }
    }

    @Test("a stereo input is not placed: left and right pass through at its gain, wherever it is")
    func stereoPassesThrough() throws {
        let mixer = Mixer3D(inputCount: 1)
        try mixer.setFormat(.canonical(sampleRate: 48_000, channelCount: 2), scope: .input, element: 0)
        let harness = try UnitHarness(mixer, frameCapacity: 64)
        let left = (0..<64).map { Float(sin(Double($0) * 0.1)) }, right = (0..<64).map { Float(cos(Double($0) * 0.3)) }
        harness.fillInput(channel: 0, with: left[...])
        harness.fillInput(channel: 1, with: right[...])
        try harness.unit.setParameter(named: "in0.azimuth", 90)
        try harness.unit.setParameter(named: "in0.gain", -6)
        harness.render(frames: 64)
        harness.render(frames: 64)
        let level = pow(10, Float(-6) / 20)
        #expect(harness.output(channel: 0, frames: 64) == left.map { $0 * level })
        #expect(harness.output(channel: 1, frames: 64) == right.map { $0 * level })
    }

    @Test("a source at azimuth 0 is centred and at ±90° fully to one side")
    func stereoPositions() throws {
        let harness = try makeMixer()
        let centre = try speakerGains(harness, ["in0.azimuth": 0])
        #expect(abs(centre[0] - 0.5.squareRoot()) < 1e-6 && abs(centre[1] - 0.5.squareRoot()) < 1e-6)
        let left = try speakerGains(harness, ["in0.azimuth": -90])
        #expect(abs(left[0] - 1) < 1e-6 && abs(left[1]) < 1e-6)
        let right = try speakerGains(harness, ["in0.azimuth": 90])
        #expect(abs(right[0]) < 1e-6 && abs(right[1] - 1) < 1e-6)
    }

    @Test("total stereo power is constant across azimuth and elevation")
    func constantPower() throws {
        let harness = try makeMixer()
        for azimuth in stride(from: Float(-180), through: 180, by: 7.5) {
            for elevation in [Float(0), 30, -60] {
                let gains = try speakerGains(harness, ["in0.azimuth": azimuth, "in0.elevation": elevation])
                #expect(abs(gains[0] * gains[0] + gains[1] * gains[1] - 1) < 1e-5, "at \(azimuth)°, \(elevation)°")
            }
        }
    }

    @Test("on quad and 5.1 a source at a speaker plays only from it, power is constant, the LFE stays silent",
          arguments: [4, 6])
    func surround(channels: Int) throws {
        let harness = try makeMixer(outputChannels: channels)
        let speakers: [(Float, Int)] = channels == 4
            ? [(-45, 0), (45, 1), (-135, 2), (135, 3)]
            : [(-30, 0), (30, 1), (0, 2), (-110, 4), (110, 5)]
        for (azimuth, channel) in speakers {
            let gains = try speakerGains(harness, ["in0.azimuth": azimuth])
            for (index, gain) in gains.enumerated() {
                #expect(abs(gain - (index == channel ? 1 : 0)) < 1e-6, "speaker at \(azimuth)°, channel \(index)")
            }
        }
        for azimuth in stride(from: Float(-180), through: 180, by: 5) {
            let gains = try speakerGains(harness, ["in0.azimuth": azimuth, "in0.elevation": azimuth / 4])
            #expect(abs(gains.reduce(0) { $0 + $1 * $1 } - 1) < 1e-5, "at \(azimuth)°")
            if channels == 6 { #expect(gains[3] == 0) }
            #expect(gains.filter { $0 > 1e-6 }.count <= (azimuth == 0 ? 2 : channels))
        }
    }

    @Test("moving a source while rendering glides instead of jumping")
    func smoothMove() throws {
        let harness = try makeMixer()
        _ = try speakerGains(harness, ["in0.azimuth": -90])
        let index = try harness.unit.index(of: try harness.unit.parameter(named: "in0.azimuth").address)
        harness.unit.applyParameterEvent(index: index, value: 90, rampFrames: 0)
        var right: [Float] = []
        for _ in 0..<20 {
            harness.render(frames: 64)
            right += harness.output(channel: 1, frames: 64)
        }
        let steps = zip(right.dropFirst(), right).map { abs($0 - $1) }
        let ramp = Int(0.02 * 48_000)
        #expect(steps.max()! <= 1.01 / Float(ramp))
        #expect(right.last! == 1)
    }

    @Test("muting a source silences it and the gain parameter scales it")
    func muteAndGain() throws {
        let harness = try makeMixer()
        #expect(try speakerGains(harness, ["in0.mute": 1]) == [0, 0])
        let gains = try speakerGains(harness, ["in0.mute": 0, "in0.gain": -6])
        #expect(abs(gains[0] - pow(10, -6.0 / 20) * 0.5.squareRoot()) < 1e-6)
    }

    @Test("rendering while sources move allocates nothing")
    func noAllocation() throws {
        let harness = try makeMixer(outputChannels: 6)
        for _ in 0..<10 { harness.render(frames: 64) }
        let counts = countAllocations {
            for cycle in 0..<1000 {
                harness.unit.applyParameterEvent(index: 4, value: Float(cycle % 360) - 180, rampFrames: 0)
                harness.unit.applyParameterEvent(index: 6, value: Float(cycle % 50), rampFrames: 32)
                if cycle % 100 == 0 { harness.unit.applyParameterEvent(index: 0, value: Float(cycle / 100 % 7), rampFrames: 0) }
                harness.render(frames: 64)
            }
        }
        #expect(counts.allocations == 0)
        #expect(counts.frees == 0)
    }
}
