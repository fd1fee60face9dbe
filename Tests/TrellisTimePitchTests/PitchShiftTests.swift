import CAllocationCounter
import Glibc
import Testing
import TrellisCore
@testable import TrellisTimePitch

@Suite("Real-time pitch shift")
struct PitchShiftTests {
    @Test("rendering a pitch shift allocates nothing and frees nothing")
    func noAllocation() throws {
        let unit = TimePitch()
        try unit.setParameter(named: "pitch", 700)
        try unit.setSampleRate(48_000)
        try unit.setMaximumFramesPerSlice(256)
        try unit.initialize()
        try unit.link(to: nil)
        let inputs = AudioBufferList(channelCounts: [2], frameCapacity: 256), outputs = AudioBufferList(channelCounts: [2], frameCapacity: 256)
        for channel in 0..<2 { for frame in 0..<256 { inputs[0][channel][frame] = Float(sin(Double(frame) * 0.05)) * 0.5 } }
        func cycle(_ index: Int) {
            let context = RenderContext(frameCount: 256, timeStamp: AudioTimeStamp(sampleTime: Int64(index * 256)),
                                        inputs: inputs.buses, outputs: outputs.buses)
            _ = unit.render(context)
        }
        for index in 0..<200 { cycle(index) }
        var least: (UInt64, UInt64) = (1 << 40, 1 << 40)
        for attempt in 0..<3 {
            trellis_allocation_counter_arm()
            for index in 0..<400 { cycle(200 + attempt * 400 + index) }
            trellis_allocation_counter_disarm()
            let counts = (trellis_allocation_counter_allocations(), trellis_allocation_counter_frees())
            if counts.0 + counts.1 < least.0 + least.1 { least = counts }
        }
        #expect(least.0 == 0 && least.1 == 0, "\(least.0) allocations, \(least.1) frees")
        #expect(outputs.samples(bus: 0, channel: 0, frameCount: 256).contains { $0 != 0 })
    }
}
