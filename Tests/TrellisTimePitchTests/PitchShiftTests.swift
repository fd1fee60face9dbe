import CAllocationCounter
import Foundation
import Glibc
import Testing
import TrellisCore
@testable import TrellisTimePitch
import TrellisTestSupport

@Suite("Real-time pitch shift")
struct PitchShiftTests {
    /// At a fixed pitch: a pitch move makes Rubber Band's resampler build tables for the
    /// new ratio, inside the library (docs/units.md).
    @Test("rendering a pitch shift allocates nothing and frees nothing, its pitch control written again and again")
    func noAllocation() throws {
        let pitch: Float = 700
        let unit = TimePitch()
        try unit.setParameter(named: "pitch", pitch)
        try unit.setSampleRate(48_000)
        try unit.setMaximumFramesPerSlice(256)
        try unit.initialize()
        try unit.link(to: nil)
        let inputs = AudioBufferList(channelCounts: [2], frameCapacity: 256), outputs = AudioBufferList(channelCounts: [2], frameCapacity: 256)
        for channel in 0..<2 { for frame in 0..<256 { inputs[0][channel][frame] = Float(sin(Double(frame) * 0.05)) * 0.5 } }
        // Now and then the pitch written again, as a host writes its controls (the event made before counting).
        let event = UnsafeMutablePointer<RenderEvent>.allocate(capacity: 1)
        defer { event.deallocate() }
        func cycle(_ index: Int, pitch: Float? = nil) {
            if let pitch { event.initialize(to: .parameter(index: 1, value: pitch, rampFrames: 0, offset: 0)) }
            let context = RenderContext(frameCount: 256, timeStamp: AudioTimeStamp(sampleTime: Int64(index * 256)),
                                        inputs: inputs.buses, outputs: outputs.buses,
                                        events: RenderEventList(base: UnsafePointer(event), count: pitch == nil ? 0 : 1))
            _ = unit.render(context)
        }
        for index in 0..<200 { cycle(index) }
        var least: (UInt64, UInt64) = (1 << 40, 1 << 40)
        for attempt in 0..<3 {
            trellis_allocation_counter_arm()
            for index in 0..<400 { cycle(200 + attempt * 400 + index, pitch: index % 40 == 0 ? pitch : nil) }
            trellis_allocation_counter_disarm()
            let counts = (trellis_allocation_counter_allocations(), trellis_allocation_counter_frees())
            if counts.0 + counts.1 < least.0 + least.1 { least = counts }
        }
        #expect(least.0 == 0 && least.1 == 0, "\(least.0) allocations, \(least.1) frees")
        #expect(outputs.samples(bus: 0, channel: 0, frameCount: 256).contains { $0 != 0 })
    }

    @Test("a tone comes out at the latency the unit reports, and without a gap, at any pitch set as it starts",
          arguments: [-2400, -1200, -700, 0, 300, 700, 1200, 2400] as [Float], [256])
    func soundArrivesAtTheLatency(_ cents: Float, _ frames: Int) throws {
        let unit = TimePitch()
        try unit.setSampleRate(48_000)
        try unit.setMaximumFramesPerSlice(frames)
        try unit.initialize()
        try unit.link(to: nil)
        let latency = unit.latencyFrames
        let inputs = AudioBufferList(channelCounts: [2], frameCapacity: frames), outputs = AudioBufferList(channelCounts: [2], frameCapacity: frames)
        var output: [Float] = []
        for index in 0..<((latency + 48_000) / frames + 1) {
            for channel in 0..<2 {
                for frame in 0..<frames { inputs[0][channel][frame] = Float(sin(Double(index * frames + frame) * 2 * .pi * 440 / 48_000)) * 0.5 }
            }
            // The pitch lands at the first cycle, as a host's first control values do.
            let events = index == 0 ? [RenderEvent.parameter(index: 1, value: cents, rampFrames: 0, offset: 0)] : []
            events.withUnsafeBufferPointer { list in
                let context = RenderContext(frameCount: frames, timeStamp: AudioTimeStamp(sampleTime: Int64(index * frames)),
                                            inputs: inputs.buses, outputs: outputs.buses,
                                            events: RenderEventList(base: list.baseAddress, count: list.count))
                _ = unit.render(context)
            }
            output += outputs.samples(bus: 0, channel: 0, frameCount: frames)
        }
        let onset = try #require(output.firstIndex { abs($0) > 1e-4 })
        // Within 128 frames: the stretcher fades its first window in.
        #expect(abs(onset - latency) <= 128, "sound at \(onset), latency \(latency)")
        // No gap after it (the FIFO never runs dry): every 10 ms holds the tone. (Its level
        // wavers: R2 beats on a pure tone at some pitches, as `rubberband --realtime -2` does.)
        for start in stride(from: latency + 4_800, to: latency + 43_200, by: 480) {
            let loudest = output[start..<(start + 480)].map(abs).max() ?? 0
            #expect(loudest > 0.05, "a gap at \(start): \(loudest)")
            if loudest <= 0.05 { break }
        }
    }
}
