import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Multichannel mixer")
struct MultichannelMixerTests {
    /// A mixer with mono input 0, stereo input 1, mono input 2.
    func makeMixer() throws -> UnitHarness {
        let mixer = MultichannelMixer(inputCount: 3)
        try mixer.setFormat(.canonical(sampleRate: 48_000, channelCount: 1), scope: .input, element: 0)
        try mixer.setFormat(.canonical(sampleRate: 48_000, channelCount: 1), scope: .input, element: 2)
        return try UnitHarness(mixer, frameCapacity: 256)
    }

    func noise(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: state) >> 40) / Float(1 << 23)
        }
    }

    @Test("the output equals the weighted sum of the inputs")
    func weightedSum() throws {
        let harness = try makeMixer()
        let unit = harness.unit
        try unit.setParameter(named: "in0.volume", 0.5)
        try unit.setParameter(named: "in0.pan", -0.3)
        try unit.setParameter(named: "in1.volume", 0.8)
        try unit.setParameter(named: "in2.volume", 1.7)
        try unit.setParameter(named: "in2.pan", 0.6)
        try unit.setParameter(named: "volume", 0.9)
        let frames = 256
        let a = noise(frames, seed: 1), bl = noise(frames, seed: 2), br = noise(frames, seed: 3), c = noise(frames, seed: 4)
        harness.fillInput(bus: 0, channel: 0, with: a[...])
        harness.fillInput(bus: 1, channel: 0, with: bl[...])
        harness.fillInput(bus: 1, channel: 1, with: br[...])
        harness.fillInput(bus: 2, channel: 0, with: c[...])
        harness.render(frames: frames)
        func law(_ pan: Double) -> (Double, Double) {
            let angle = (pan + 1) * Double.pi / 4
            return (cos(angle), sin(angle))
        }
        let (a0, a1) = law(-0.3), (c0, c1) = law(0.6)
        let left = harness.output(channel: 0, frames: frames), right = harness.output(channel: 1, frames: frames)
        for n in 0..<frames {
            let expectedLeft = 0.9 * (0.5 * a0 * Double(a[n]) + 0.8 * Double(bl[n]) + 1.7 * c0 * Double(c[n]))
            let expectedRight = 0.9 * (0.5 * a1 * Double(a[n]) + 0.8 * Double(br[n]) + 1.7 * c1 * Double(c[n]))
            #expect(abs(Double(left[n]) - expectedLeft) <= 1e-6)
            #expect(abs(Double(right[n]) - expectedRight) <= 1e-6)
        }
    }

    @Test("the pan law puts a mono input fully left at -1, -3 dB each side at 0, fully right at +1")
    func panLaw() throws {
        for (pan, expected) in [(Float(-1), (1.0, 0.0)), (0, (0.5.squareRoot(), 0.5.squareRoot())), (1, (0.0, 1.0))] {
            let harness = try makeMixer()
            try harness.unit.setParameter(named: "in1.enable", 0)
            try harness.unit.setParameter(named: "in2.enable", 0)
            try harness.unit.setParameter(named: "in0.pan", pan)
            harness.fillInput(bus: 0, channel: 0, with: Array(repeating: 1, count: 64)[...])
            harness.render(frames: 64)
            let left = Double(harness.output(channel: 0, frames: 64)[63]), right = Double(harness.output(channel: 1, frames: 64)[63])
            #expect(abs(left - expected.0) < 1e-6, "left at pan \(pan)")
            #expect(abs(right - expected.1) < 1e-6, "right at pan \(pan)")
            if pan == 0 { #expect(abs(decibels(left) - -3.0103) < 1e-3) }
        }
    }

    @Test("a stereo input at the centre, unity volume, passes through bit for bit on both sides")
    func stereoCentreIsTransparent() throws {
        let harness = try makeMixer()
        try harness.unit.setParameter(named: "in0.enable", 0)
        try harness.unit.setParameter(named: "in2.enable", 0)
        let left = noise(256, seed: 5), right = noise(256, seed: 6)
        harness.fillInput(bus: 1, channel: 0, with: left[...])
        harness.fillInput(bus: 1, channel: 1, with: right[...])
        harness.render(frames: 256)
        #expect(harness.output(channel: 0, frames: 256) == left)
        #expect(harness.output(channel: 1, frames: 256) == right)
    }

    @Test("a mono input pans as mirror images: the same on both sides at the centre, nothing on the far side at ±1")
    func monoPanIsSymmetric() throws {
        for pan: Float in [-1, -0.6, -0.25, 0, 0.25, 0.6, 1] {
            let (left, right) = PanLaw.mono(pan), (mirroredLeft, mirroredRight) = PanLaw.mono(-pan)
            #expect(left == mirroredRight && right == mirroredLeft, "at \(pan)")
            #expect(abs(left * left + right * right - 1) < 1e-6, "at \(pan)")
        }
        #expect(PanLaw.mono(-1) == (1, 0) && PanLaw.mono(1) == (0, 1))
        let harness = try makeMixer()
        try harness.unit.setParameter(named: "in1.enable", 0)
        try harness.unit.setParameter(named: "in2.enable", 0)
        let signal = noise(256, seed: 7)
        harness.fillInput(bus: 0, channel: 0, with: signal[...])
        harness.render(frames: 256)
        #expect(harness.output(channel: 0, frames: 256) == harness.output(channel: 1, frames: 256))
    }

    @Test("muted and disabled inputs contribute nothing")
    func muteAndDisable() throws {
        let harness = try makeMixer()
        try harness.unit.setParameter(named: "in0.mute", 1)
        try harness.unit.setParameter(named: "in1.enable", 0)
        let signal = noise(128, seed: 9)
        harness.fillInput(bus: 0, channel: 0, with: signal[...])
        harness.fillInput(bus: 1, channel: 0, with: signal[...])
        harness.fillInput(bus: 1, channel: 1, with: signal[...])
        harness.fillInput(bus: 2, channel: 0, with: Array(repeating: 0, count: 128)[...])
        harness.render(frames: 128)
        #expect(harness.output(channel: 0, frames: 128).allSatisfy { $0 == 0 })
        #expect(harness.output(channel: 1, frames: 128).allSatisfy { $0 == 0 })
    }

    @Test("meters report the peak and RMS of the slice in dBFS")
    func meters() throws {
        let harness = try makeMixer()
        let frames = 200
        let a = noise(frames, seed: 5), bl = noise(frames, seed: 6), br = noise(frames, seed: 7)
        harness.fillInput(bus: 0, channel: 0, with: a[...])
        harness.fillInput(bus: 1, channel: 0, with: bl[...])
        harness.fillInput(bus: 1, channel: 1, with: br[...])
        harness.fillInput(bus: 2, channel: 0, with: Array(repeating: 0, count: frames)[...])
        harness.render(frames: frames)
        func expectLevel(_ samples: [Float], peak: String, average: String) throws {
            let expectedPeak = 20 * log10(Double(samples.map { abs($0) }.max()!))
            let expectedAverage = decibels(rms(samples[...]))
            #expect(abs(Double(try harness.unit.parameterValue(try harness.unit.parameter(named: peak).address)) - expectedPeak) < 1e-3)
            #expect(abs(Double(try harness.unit.parameterValue(try harness.unit.parameter(named: average).address)) - expectedAverage) < 1e-3)
        }
        try expectLevel(a, peak: "in0.peak", average: "in0.average")
        try expectLevel(bl + br, peak: "in1.peak", average: "in1.average")
        try expectLevel(harness.output(channel: 0, frames: frames) + harness.output(channel: 1, frames: frames),
                        peak: "out.peak", average: "out.average")
        #expect(try harness.unit.parameterValue(try harness.unit.parameter(named: "in2.peak").address) == -160)
        #expect(try harness.unit.parameterValue(try harness.unit.parameter(named: "in2.average").address) == -160)
    }

    @Test("a volume step while rendering ramps instead of jumping")
    func volumeRamp() throws {
        let harness = try makeMixer()
        try harness.unit.setParameter(named: "in1.enable", 0)
        try harness.unit.setParameter(named: "in2.enable", 0)
        harness.fillInput(bus: 0, channel: 0, with: Array(repeating: 1, count: 256)[...])
        harness.render(frames: 256)
        let index = try harness.unit.index(of: try harness.unit.parameter(named: "in0.volume").address)
        harness.unit.applyParameterEvent(index: index, value: 0, rampFrames: 1024)
        var left: [Float] = []
        for _ in 0..<5 {
            harness.render(frames: 256)
            left += harness.output(channel: 0, frames: 256)
        }
        let start = Float(0.5).squareRoot()
        let steps = zip(left.dropFirst(), left).map { abs($0 - $1) }
        #expect(steps.max()! <= start / 1024 * 1.01)
        #expect(left[1023] == 0 && left.last! == 0)
    }

    @Test("setting the input count declares parameters for every input")
    func inputCount() throws {
        let mixer = MultichannelMixer(inputCount: 2)
        try mixer.setElementCount(12, scope: .input)
        #expect(try mixer.parameter(named: "in11.pan").address == ParameterAddress(MultichannelMixer.ParameterID.pan, scope: .input, element: 11))
        #expect(throws: AudioUnitError.self) { try mixer.parameter(named: "in12.pan") }
    }

    @Test("rendering with parameter changes allocates nothing")
    func noAllocation() throws {
        let harness = try makeMixer()
        let pan = try harness.unit.index(of: try harness.unit.parameter(named: "in0.pan").address)
        let mute = try harness.unit.index(of: try harness.unit.parameter(named: "in1.mute").address)
        for cycle in 0..<10 { harness.unit.applyParameterEvent(index: pan, value: Float(cycle % 3) - 1, rampFrames: 0); harness.render(frames: 256) }
        let counts = countAllocations {
            for cycle in 0..<1000 {
                harness.unit.applyParameterEvent(index: pan, value: Float(cycle % 3) - 1, rampFrames: cycle % 2 * 100)
                harness.unit.applyParameterEvent(index: mute, value: Float(cycle % 2), rampFrames: 0)
                harness.render(frames: 256)
            }
        }
        #expect(counts.allocations == 0)
        #expect(counts.frees == 0)
    }
}
