import CAllocationCounter
import CTrellisShim
import Testing
import TrellisCore
@testable import TrellisLV2

@Suite("LV2 rendering allocates nothing")
struct AllocationTests {
    @Test("rendering with ramped parameter changes allocates nothing", arguments: [
        Fixture.amp, "http://drobilla.net/plugins/mda/Combo", "http://plugin.org.uk/swh-plugins/plate",
    ])
    func effectRendersWithoutAllocating(uri: String) throws {
        let unit = try makeUnit(uri, maxFrames: 256)
        try unit.initialize()
        let render = OfflineRender(unit, blockSize: 256)
        var noise = Noise()
        for bus in 0..<render.inputs.busCount {
            for channel in 0..<render.inputs[bus].channelCount {
                for frame in 0..<256 { render.inputs[bus][channel][frame] = noise.next() }
            }
        }
        let writable = unit.parameters.enumerated().filter { $0.element.isWritable }.map { ($0.offset, $0.element.range) }
        for _ in 0..<8 { _ = render.renderBlock(frames: 256) }

        trellis_set_audio_thread(1)
        trellis_allocation_counter_arm()
        for cycle in 0..<400 {
            let (index, range) = writable[cycle % writable.count]
            let fraction = Float(cycle % 7) / 6
            unit.applyParameterEvent(index: index, value: range.lowerBound + (range.upperBound - range.lowerBound) * fraction, rampFrames: cycle % 2 == 0 ? 0 : 100)
            _ = render.renderBlock(frames: 256)
        }
        trellis_allocation_counter_disarm()
        trellis_set_audio_thread(0)
        #expect(trellis_allocation_counter_allocations() == 0)
        #expect(trellis_allocation_counter_frees() == 0)
    }

    @Test("an instrument fed MIDI on the render thread allocates nothing")
    func instrumentRendersWithoutAllocating() throws {
        let unit = try makeUnit(Fixture.epiano, maxFrames: 256)
        try unit.initialize()
        let render = OfflineRender(unit, blockSize: 256)
        for _ in 0..<4 { _ = render.renderBlock(frames: 256) }
        trellis_set_audio_thread(1)
        trellis_allocation_counter_arm()
        for cycle in 0..<400 {
            let note = UInt8(48 + cycle % 24)
            unit.scheduleMIDI(.noteOn(note: note, velocity: 100), frame: cycle % 256)
            unit.scheduleMIDI(.noteOff(note: note), frame: 255)
            _ = render.renderBlock(frames: 256)
        }
        trellis_allocation_counter_disarm()
        trellis_set_audio_thread(0)
        #expect(trellis_allocation_counter_allocations() == 0)
    }
}
