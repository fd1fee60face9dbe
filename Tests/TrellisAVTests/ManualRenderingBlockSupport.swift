import CAllocationCounter
@testable import TrellisAV

/// A PCM buffer and an `AudioBufferList` over its channels, as a manual rendering block
/// takes its output; the list is freed with this.
final class BlockOutput {
    let buffer: AVAudioPCMBuffer
    let list: UnsafeMutableAudioBufferListPointer
    private var status: OSStatus = 0

    init(format: AVAudioFormat, frames: AVAudioFrameCount) {
        buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames)!
        list = AudioBufferList.allocate(maximumBuffers: Int(format.channelCount))
        for channel in 0..<Int(format.channelCount) {
            list[channel] = AudioBuffer(mNumberChannels: 1, mDataByteSize: frames * 4, mData: UnsafeMutableRawPointer(buffer.floatChannelData![channel]))
        }
    }

    deinit { UnsafeMutableRawPointer(list.unsafeMutablePointer).deallocate() }

    /// Calls `block` for `frames` into the list; its status and the error code it set.
    func render(_ block: AVAudioEngineManualRenderingBlock, _ frames: AVAudioFrameCount) -> (AVAudioEngineManualRenderingStatus, OSStatus) {
        let result = block(frames, list.unsafeMutablePointer, &status)
        return (result, status)
    }

    /// Channel `channel`'s first `frames` samples.
    func samples(_ channel: Int, _ frames: Int) -> [Float] { Array(UnsafeBufferPointer(start: buffer.floatChannelData![channel], count: frames)) }
}

/// The allocations and frees counted while `body` ran (the process's: take the fewest of several calls).
func allocationsCounted(_ body: () -> Void) -> UInt64 {
    trellis_allocation_counter_arm()
    body()
    trellis_allocation_counter_disarm()
    return trellis_allocation_counter_allocations() + trellis_allocation_counter_frees()
}
