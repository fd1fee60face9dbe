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
        // Rendered faster than real time: the pitch set on this thread, as offline.
        try unit.setProperty(.offlineRender, .bool(true), scope: .global, element: 0)
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

    /// Live: cycles at the pace of a 256-frame period, the pitch moving every 50 ms across
    /// the whole range (Rubber Band's window changes at an octave up included).
    @Test("moving the pitch live allocates nothing on the audio thread, and the sound neither stops nor loses its pitch")
    func liveMovesAllocateNothing() throws {
        var attempts = 0
        while true {
            attempts += 1
            guard let take = try liveTake() else {
                // The test's own thread fell behind real time (a busy machine): taken again.
                try #require(attempts < 4, "the rendering thread never kept pace with real time")
                continue
            }
            #expect(take.allocations == 0 && take.frees == 0, "\(take.allocations) allocations, \(take.frees) frees")
            let output = take.output, latency = take.latency
            for start in stride(from: latency + 4_800, to: output.count - 480, by: 480) {
                let loudest = output[start..<(start + 480)].map(abs).max() ?? 0
                #expect(loudest > 0.05, "a gap at \(start): \(loudest)")
                if loudest <= 0.05 { break }
            }
            // The last move, to +1200 cents, made and heard: 880 Hz.
            let settled = take.lastMove + latency + 9_600
            #expect(abs(peakHertz(output[settled..<(settled + 24_000)], low: 860, high: 900) - 880) <= 0.5)
            return
        }
    }

    private struct LiveTake {
        var output: [Float]
        var latency: Int
        var lastMove: Int
        var allocations: UInt64
        var frees: UInt64
    }

    /// Nil when a cycle came more than four periods late. Rendered at real-time priority
    /// above the mover's, as JACK's thread is, where the system allows.
    private func liveTake() throws -> LiveTake? {
        var realTime = sched_param(sched_priority: 5), normal = sched_param(sched_priority: 0)
        _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &realTime)
        defer { _ = pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal) }
        let frames = 256
        let unit = TimePitch()
        try unit.setSampleRate(48_000)
        try unit.setMaximumFramesPerSlice(frames)
        try unit.initialize()
        try unit.link(to: nil)
        let latency = unit.latencyFrames
        let inputs = AudioBufferList(channelCounts: [2], frameCapacity: frames), outputs = AudioBufferList(channelCounts: [2], frameCapacity: frames)
        let moves: [Float] = [-2400, -1700, -600, 0, 500, 1100, 1300, 2400, -2400, 2400, -1200, 1200]
        // Counting from the 200th cycle (the first make what Rubber Band makes lazily), moving from the 210th.
        let movePeriod = 10, firstMove = 210, armed = 200
        let cycles = firstMove + movePeriod * moves.count + (latency + 48_000) / frames
        let events = UnsafeMutablePointer<RenderEvent>.allocate(capacity: moves.count)
        defer { events.deallocate() }
        for (index, cents) in moves.enumerated() { (events + index).initialize(to: .parameter(index: 1, value: cents, rampFrames: 0, offset: 0)) }
        var output = [Float](repeating: 0, count: cycles * frames)
        let period = UInt64(frames) * 1_000_000_000 / 48_000
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let start = UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec)
        var late = false
        let sources = [inputs[0][0], inputs[0][1]], result = outputs[0][0]
        let buses = (inputs.buses, outputs.buses)
        output.withUnsafeMutableBufferPointer { taken in
            for index in 0..<cycles {
                if index == armed { trellis_allocation_counter_arm() }
                let due = start + UInt64(index) * period
                clock_gettime(CLOCK_MONOTONIC, &clock)
                let now = UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec)
                if now > due + 4 * period { late = true; break }
                if now < due {
                    var wait = timespec(tv_sec: Int((due - now) / 1_000_000_000), tv_nsec: Int((due - now) % 1_000_000_000))
                    nanosleep(&wait, nil)
                }
                for frame in 0..<frames {
                    let sample = Float(sin(Double(index * frames + frame) * 2 * .pi * 440 / 48_000)) * 0.5
                    sources[0][frame] = sample
                    sources[1][frame] = sample
                }
                let step = index == 50 ? moves.count - 1 : (index - firstMove) / movePeriod
                let move = index == 50 || index >= firstMove && (index - firstMove) % movePeriod == 0 && step < moves.count
                let context = RenderContext(frameCount: frames, timeStamp: AudioTimeStamp(sampleTime: Int64(index * frames)),
                                            inputs: buses.0, outputs: buses.1,
                                            events: RenderEventList(base: UnsafePointer(events + max(0, min(step, moves.count - 1))), count: move ? 1 : 0))
                _ = unit.render(context)
                for frame in 0..<frames { taken[index * frames + frame] = result[frame] }
            }
            trellis_allocation_counter_disarm()
        }
        if late { return nil }
        return LiveTake(output: output, latency: latency, lastMove: (firstMove + movePeriod * (moves.count - 1)) * frames,
                        allocations: trellis_allocation_counter_allocations(), frees: trellis_allocation_counter_frees())
    }
}
