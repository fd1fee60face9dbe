import CAllocationCounter
import CTrellisShim
import Glibc
import Testing
import TrellisCore
@testable import TrellisLV2
import TrellisUnits

@Suite("A mono plugin run once per channel")
struct MultiMonoTests {
    static func stereoAmp(world: LV2World = LV2World()) throws -> MultiMonoUnit {
        let unit = MultiMonoUnit(instances: [try makeUnit(Fixture.amp, world: world, maxFrames: 256), try makeUnit(Fixture.amp, world: world, maxFrames: 256)])
        try unit.setSampleRate(48_000)
        try unit.setMaximumFramesPerSlice(256)
        return unit
    }

    @Test("only a mono-in, mono-out unit that cannot widen itself qualifies")
    func whoQualifies() throws {
        #expect(MultiMonoUnit.canRun(try makeUnit(Fixture.amp)))
        #expect(!MultiMonoUnit.canRun(try makeUnit(Fixture.epiano)), "an instrument")
        #expect(!MultiMonoUnit.canRun(Gain(channelCount: 1)), "a built-in that can take any width")
    }

    @Test("each instance processes its own channel: eg-amp at -6 dB scales two different signals exactly")
    func eachChannelAlone() throws {
        let unit = try Self.stereoAmp()
        try unit.setParameter(named: "gain", -6)
        try unit.initialize()
        var noise = Noise()
        let left = noise.samples(4_800), right = noise.samples(4_800)
        let out = OfflineRender(unit).process([left, right], frames: 4_800)
        let gain = powf(10, -6 * 0.05)
        #expect(out.count == 2)
        #expect(zip(out[0], left).map { abs($0 - $1 * gain) }.max()! < 1e-6)
        #expect(zip(out[1], right).map { abs($0 - $1 * gain) }.max()! < 1e-6)
    }

    @Test("a state restored reaches every instance, and the unit shows its values")
    func stateReachesEveryInstance() throws {
        let donor = try makeUnit(Fixture.amp)
        try donor.setParameter(named: "gain", -12)
        try donor.initialize()
        let unit = try Self.stereoAmp()
        try unit.initialize()
        try unit.restore(stateText: donor.saveState())
        for instance in unit.instances { #expect(try instance.parameterValue(ParameterAddress(0)) == -12) }
        #expect(try unit.parameter(named: "gain").address == ParameterAddress(0))
        #expect(try unit.parameterValue(ParameterAddress(0)) == -12)
    }

    @Test("ramped parameter changes reach every instance, and rendering allocates nothing")
    func rampsWithoutAllocating() throws {
        let unit = try Self.stereoAmp()
        try unit.initialize()
        let render = OfflineRender(unit, blockSize: 256)
        var noise = Noise()
        for channel in 0..<2 { for frame in 0..<256 { render.inputs[0][channel][frame] = noise.next() } }
        for _ in 0..<8 { _ = render.renderBlock(frames: 256) }
        // The least of up to three runs: the Swift runtime's caches, grown by another
        // test's thread, now and then free old storage from this one.
        var counts: (allocations: UInt64, frees: UInt64) = (0, 0)
        for _ in 0..<3 {
            trellis_set_audio_thread(1)
            trellis_allocation_counter_arm()
            for cycle in 0..<400 {
                unit.applyParameterEvent(index: 0, value: Float(-(cycle % 24)), rampFrames: cycle % 2 == 0 ? 0 : 100)
                _ = render.renderBlock(frames: 256)
            }
            trellis_allocation_counter_disarm()
            trellis_set_audio_thread(0)
            counts = (trellis_allocation_counter_allocations(), trellis_allocation_counter_frees())
            if counts.allocations == 0 && counts.frees == 0 { break }
        }
        #expect(counts.allocations == 0)
        #expect(counts.frees == 0)
        // The last event was -(399 % 24) = -15 dB: both channels now scale alike.
        for frame in 0..<256 { render.inputs[0][1][frame] = render.inputs[0][0][frame] }
        for _ in 0..<2 { _ = render.renderBlock(frames: 256) }
        let left = UnsafeBufferPointer(start: render.outputs[0][0], count: 256)
        let right = UnsafeBufferPointer(start: render.outputs[0][1], count: 256)
        #expect(zip(left, right).allSatisfy { $0 == $1 })
        for instance in unit.instances { #expect(try instance.parameterValue(ParameterAddress(0)) == -15) }
    }
}
