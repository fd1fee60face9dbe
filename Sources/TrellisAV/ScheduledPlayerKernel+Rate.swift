import Synchronization
import TrellisCore

/// The player node's kernel reading its timeline at the rate a time effect asked for.
extension ScheduledPlayerKernel {
    /// Reads the timeline `speed` times as fast into the output, the pitch moving with it:
    /// source frames go through a FIFO and are interpolated. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func varispeed(into output: AudioBuffers, at offset: Int, count: Int, now: Int64, speed: Double,
                   memory: UnsafeMutablePointer<PlayerRateMemory>) {
        let start = memory.pointee.position, channels = memory.pointee.channels, capacity = memory.pointee.fifoCapacity
        // Enough frames for the last output's four points, and for two frames of history after the move.
        let needed = min(capacity, max(Int(start + Double(count &- 1) * speed) &+ 3, Int(start + Double(count) * speed) &+ 1))
        let fill = needed &- memory.pointee.fifoCount
        if fill > 0 {
            for channel in 0..<channels { memory.pointee.table[channel] = memory.pointee.fifo + channel &* capacity + memory.pointee.fifoCount }
            play(into: AudioBuffers(channelPointers: UnsafePointer(memory.pointee.table), channelCount: channels), at: 0, count: fill, now: now &+ Int64(offset))
            memory.pointee.fifoCount = needed
        }
        for channel in 0..<output.channelCount {
            let source = memory.pointee.fifo + min(channel, channels &- 1) &* capacity, destination = output[channel] + offset
            var position = start
            for frame in 0..<count {
                let index = min(Int(position), needed &- 3)
                let t = Float(position - Double(index))
                destination[frame] = PlayerRateMemory.interpolate(source[index &- 1], source[index], source[index &+ 1], source[index &+ 2], t)
                position += speed
            }
        }
        var position = start + Double(count) * speed
        let drop = min(Int(position) &- 1, memory.pointee.fifoCount &- 2)
        if drop > 0 {
            let kept = memory.pointee.fifoCount &- drop
            for channel in 0..<channels {
                let line = memory.pointee.fifo + channel &* capacity
                for index in 0..<kept { line[index] = line[index &+ drop] }
            }
            memory.pointee.fifoCount = kept
            position -= Double(drop)
        }
        memory.pointee.position = max(1, position)
    }

    /// Reads the timeline through the stretcher into the output: as fast as it asks, the
    /// pitch kept (or moved as set). A cycle the control side holds the stretcher stays
    /// silent. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func stretch(into output: AudioBuffers, at offset: Int, count: Int, now: Int64, memory: UnsafeMutablePointer<PlayerRateMemory>) {
        rate.pointee.kernelHolds.store(true, ordering: .sequentiallyConsistent)
        defer { rate.pointee.kernelHolds.store(false, ordering: .releasing) }
        guard !rate.pointee.controlHolds.load(ordering: .sequentiallyConsistent) else { return }
        let stretcher = memory.pointee.stretcher, channels = memory.pointee.channels, block = stretcher.maximumBlock
        var written = 0, rounds = 0
        while written < count, rounds < 256 {
            rounds &+= 1
            let ready = stretcher.available()
            if ready > 0 {
                for channel in 0..<channels {
                    memory.pointee.outputTable[channel] = channel < output.channelCount ? output[channel] + (offset &+ written) : memory.pointee.scratch
                }
                written &+= stretcher.retrieve(UnsafePointer(memory.pointee.outputTable), frames: min(ready, count &- written))
                continue
            }
            let wanted = min(block, max(1, stretcher.framesRequired()))
            for channel in 0..<channels {
                memory.pointee.table[channel] = memory.pointee.scratch + channel &* block
                memory.pointee.inputTable[channel] = UnsafePointer(memory.pointee.scratch + channel &* block)
            }
            play(into: AudioBuffers(channelPointers: UnsafePointer(memory.pointee.table), channelCount: channels), at: 0, count: wanted,
                 now: now &+ Int64(offset &+ written))
            stretcher.process(UnsafePointer(memory.pointee.inputTable), frames: wanted)
        }
    }
}
