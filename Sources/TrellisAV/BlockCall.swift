import TrellisCore

/// The arguments a block node's kernel hands the user's block, an `AudioBufferList`
/// and a time stamp, as plain pointers the kernel copies. `BlockCallMemory` owns them.
struct BlockCall {
    let list: UnsafeMutablePointer<AudioBufferList>
    let buffers: UnsafeMutablePointer<AudioBuffer>
    let stamp: UnsafeMutablePointer<AudioTimeStamp>
    let maximumBuffers: Int

    /// Points the list at `bus`'s first channels and the stamp at the cycle's time.
    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func point(at bus: AudioBuffers, frames: Int, time: TrellisCore.AudioTimeStamp) {
        let count = min(maximumBuffers, bus.channelCount)
        list.pointee.mNumberBuffers = UInt32(count)
        for channel in 0..<count {
            buffers[channel] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(frames &* 4), mData: UnsafeMutableRawPointer(bus[channel]))
        }
        stamp.pointee.mSampleTime = Double(time.sampleTime)
        stamp.pointee.mHostTime = time.hostTime
    }
}

/// Owns a `BlockCall`'s memory: made with the unit, freed with it. Thread: control.
final class BlockCallMemory {
    let call: BlockCall
    private let memory = Arena()

    init(maximumBuffers: Int) {
        let size = AudioBufferList.sizeInBytes(maximumBuffers: maximumBuffers)
        let raw = memory.takeBytes(size, alignment: MemoryLayout<AudioBufferList>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let list = raw.bindMemory(to: AudioBufferList.self, capacity: 1)
        list.pointee.mNumberBuffers = UInt32(maximumBuffers)
        var valid = AudioTimeStamp()
        valid.mFlags = .sampleHostTimeValid
        let stamp = memory.place(valid)
        let buffers = (raw + AudioBufferList.buffersOffset).assumingMemoryBound(to: AudioBuffer.self)
        call = BlockCall(list: list, buffers: buffers, stamp: stamp, maximumBuffers: maximumBuffers)
    }
}
