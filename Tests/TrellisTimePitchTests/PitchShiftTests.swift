import CAllocationCounter
import Glibc
import Testing
import TrellisCore
@testable import TrellisTimePitch

@Suite("Real-time pitch shift")
struct PitchShiftTests {
    /// Up to just under an octave up. Rubber Band's R2 engine changes its analysis window
    /// at and above an octave up and reallocates then, inside the library (docs/units.md).
    @Test("rendering a pitch shift allocates nothing and frees nothing while the pitch moves from two octaves down to just under one up")
    func noAllocation() throws {
        let low: Float = -2400, high: Float = 1190
        let unit = TimePitch()
        try unit.setParameter(named: "pitch", low)
        try unit.setSampleRate(48_000)
        try unit.setMaximumFramesPerSlice(256)
        try unit.initialize()
        try unit.link(to: nil)
        let inputs = AudioBufferList(channelCounts: [2], frameCapacity: 256), outputs = AudioBufferList(channelCounts: [2], frameCapacity: 256)
        for channel in 0..<2 { for frame in 0..<256 { inputs[0][channel][frame] = Float(sin(Double(frame) * 0.05)) * 0.5 } }
        // Now and then a new pitch (the event's memory made before counting).
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
            for index in 0..<400 { cycle(200 + attempt * 400 + index, pitch: index % 40 == 0 ? low + (high - low) * Float(index) / 360 : nil) }
            trellis_allocation_counter_disarm()
            let counts = (trellis_allocation_counter_allocations(), trellis_allocation_counter_frees())
            if counts.0 + counts.1 < least.0 + least.1 { least = counts }
        }
        #expect(least.0 == 0 && least.1 == 0, "\(least.0) allocations, \(least.1) frees")
        #expect(outputs.samples(bus: 0, channel: 0, frameCount: 256).contains { $0 != 0 })
    }

    @Test("a tone comes out at the latency the unit reports, at any pitch set before it plays", arguments: [-2400, -700, 0, 1200, 2400] as [Float])
    func soundArrivesAtTheLatency(_ cents: Float) throws {
        let unit = TimePitch()
        try unit.setSampleRate(48_000)
        try unit.setMaximumFramesPerSlice(256)
        try unit.initialize()
        try unit.link(to: nil)
        let latency = unit.latencyFrames
        let inputs = AudioBufferList(channelCounts: [2], frameCapacity: 256), outputs = AudioBufferList(channelCounts: [2], frameCapacity: 256)
        var output: [Float] = []
        for index in 0..<(latency / 256 + 20) {
            for channel in 0..<2 {
                for frame in 0..<256 { inputs[0][channel][frame] = Float(sin(Double(index * 256 + frame) * 2 * .pi * 440 / 48_000)) * 0.5 }
            }
            // The pitch lands at the first cycle, as a host's first control values do.
            let events = index == 0 ? [RenderEvent.parameter(index: 1, value: cents, rampFrames: 0, offset: 0)] : []
            events.withUnsafeBufferPointer { list in
                let context = RenderContext(frameCount: 256, timeStamp: AudioTimeStamp(sampleTime: Int64(index * 256)),
                                            inputs: inputs.buses, outputs: outputs.buses,
                                            events: RenderEventList(base: list.baseAddress, count: list.count))
                _ = unit.render(context)
            }
            output += outputs.samples(bus: 0, channel: 0, frameCount: 256)
        }
        let onset = try #require(output.firstIndex { abs($0) > 1e-4 })
        #expect(abs(onset - latency) <= 64, "sound at \(onset), latency \(latency)")
    }
}
