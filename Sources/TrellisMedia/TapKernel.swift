import CTrellisShim
import TrellisCore
import TrellisEngine

/// The render side of a `Tap`: copies the watched bus into the ring's slots, a slot
/// at a time, and counts what a full ring drops. Plain memory that the tap makes and
/// frees. Thread: audio (and the rendering thread between cycles, for offline waits).
struct TapKernel: SliceObserving {
    let ring: FrameRing
    let bufferSize: Int
    let channelCount: Int
    let dropped: AtomicCell<Int>
    /// The slot being filled, or -1.
    var slot = -1
    var filled = 0
    var pendingDrops = 0

    init(ring: FrameRing, bufferSize: Int, channelCount: Int, dropped: AtomicCell<Int>) {
        self.ring = ring
        self.bufferSize = bufferSize
        self.channelCount = channelCount
        self.dropped = dropped
    }

    /// Thread: audio.
    @inline(__always)
    mutating func observe(_ slice: ObservedSlice) {
        let (bus, frameCount, timeStamp) = (slice.bus, slice.frameCount, slice.timeStamp)
        var offset = 0
        while offset < frameCount {
            if slot < 0 {
                guard let free = ring.writableSlot() else {
                    let lost = frameCount &- offset
                    pendingDrops &+= lost
                    dropped.pointee.wrappingAdd(lost, ordering: .relaxed)
                    return
                }
                slot = free
                filled = 0
                let header = ring.header(free)
                header.pointee.timeStamp = AudioTimeStamp(sampleTime: timeStamp.sampleTime &+ Int64(offset), hostTime: timeStamp.hostTime)
                header.pointee.dropped = pendingDrops
                pendingDrops = 0
            }
            let count = min(bufferSize &- filled, frameCount &- offset)
            let destination = ring.buffers(slot)
            var channel = 0
            while channel < channelCount {
                let to = destination[channel] + filled
                if channel < bus.channelCount {
                    // The tap's thread reads it next: stores that bypass this core's cache
                    // (C, which the checker cannot see into: a copy, nothing more).
                    let from = UnsafePointer(bus[channel] + offset)
                    _unsafePerformance { trellis_stream_samples(to, from, Int64(count)) }
                } else {
                    to.update(repeating: 0, count: count)
                }
                channel &+= 1
            }
            filled &+= count
            offset &+= count
            if filled == bufferSize {
                ring.header(slot).pointee.frameCount = filled
                _unsafePerformance { trellis_stream_fence() }
                ring.commit()
                slot = -1
            }
        }
    }

    /// Frames the ring has room for. Thread: the rendering thread, between cycles.
    var room: Int { ring.freeSlots * bufferSize - (slot < 0 ? 0 : filled) }
}

extension TapKernel {
    /// The observer entry. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func observe(_ state: UnsafeMutableRawPointer, _ slice: UnsafeRawPointer) {
        observeSlice(state, slice)
    }
}
