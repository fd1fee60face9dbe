import Synchronization
import TrellisCore

public typealias AVAudioEngineManualRenderingBlock = (
    _ numberOfFrames: AVAudioFrameCount, _ outputData: UnsafeMutablePointer<AudioBufferList>, _ outError: UnsafeMutablePointer<OSStatus>?
) -> AVAudioEngineManualRenderingStatus

/// What the manual rendering block renders with: plain memory the engine's manual
/// rendering owns, filled when the engine starts and emptied when it stops.
struct ManualRenderingTarget {
    var entry: RenderEntry?
    var position: UnsafeMutablePointer<Int64>?
    let table: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let channels: Int
    let maximumFrames: Int
    let running: UnsafeMutablePointer<Atomic<Bool>>
    /// `AudioBufferList.buffersOffset`, read on the control side (a static's first read may lock).
    let buffersOffset: Int
    /// The cycle's buses: no input, and `table` (repointed every slice) as the output.
    let input: AudioBuffers
    let output: AudioBuffers

    static let kAudioUnitErr_InvalidParameter: OSStatus = -10_878
    static let kAudioUnitErr_Uninitialized: OSStatus = -10_867

    /// Renders `frames` into `list`'s buffers in slices on the prepared grid, with
    /// nothing between slices. Thread: the caller's, real-time in realtime mode.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ target: UnsafePointer<ManualRenderingTarget>, frames: Int, list: UnsafeMutablePointer<AudioBufferList>,
                       error: UnsafeMutablePointer<OSStatus>?) -> AVAudioEngineManualRenderingStatus {
        let state = target.pointee
        guard state.running.pointee.load(ordering: .acquiring), let entry = state.entry, let position = state.position else {
            error?.pointee = kAudioUnitErr_Uninitialized
            return .cannotDoInCurrentContext
        }
        let buffers = (UnsafeMutableRawPointer(list) + state.buffersOffset).assumingMemoryBound(to: AudioBuffer.self)
        guard frames <= state.maximumFrames, Int(list.pointee.mNumberBuffers) == state.channels else {
            error?.pointee = kAudioUnitErr_InvalidParameter
            return .error
        }
        for channel in 0..<state.channels where buffers[channel].mData == nil || Int(buffers[channel].mDataByteSize) < frames &* 4 {
            error?.pointee = kAudioUnitErr_InvalidParameter
            return .error
        }
        let grid = Int64(max(1, state.maximumFrames))
        // The fence: the shim's C calls set a thread-local flag and the FPU's mode, nothing more.
        let floatState = _unsafePerformance { AudioThread.enter() }
        defer { _unsafePerformance { AudioThread.leave(restoring: floatState) } }
        // clock_gettime(CLOCK_MONOTONIC) is a vDSO read: no lock, no allocation.
        let host = _unsafePerformance { HostClock.now() }
        var offset = 0
        while offset < frames {
            let slice = min(frames &- offset, Int(grid &- position.pointee % grid))
            for channel in 0..<state.channels {
                state.table[channel] = buffers[channel].mData.unsafelyUnwrapped.assumingMemoryBound(to: Float.self) + offset
            }
            var cycle = BackendCycle(
                frameCount: slice, timeStamp: TrellisCore.AudioTimeStamp(sampleTime: position.pointee, hostTime: host),
                input: state.input, output: state.output)
            // The entry is checked where it is defined (the engine's program runner).
            let status = withUnsafeMutablePointer(to: &cycle) { cycle in _unsafePerformance { entry.render(UnsafePointer(cycle)) } }
            guard status == .ok else {
                error?.pointee = kAudioUnitErr_InvalidParameter
                return .error
            }
            offset &+= slice
            position.pointee &+= Int64(slice)
        }
        error?.pointee = noErr
        return .success
    }
}

/// Owns a manual rendering's target for as long as the engine or a block it gave out lives.
final class ManualRenderingTargetBox: @unchecked Sendable {
    let target: UnsafeMutablePointer<ManualRenderingTarget>

    init(channels: Int, maximumFrames: Int) {
        let running = UnsafeMutablePointer<Atomic<Bool>>.allocate(capacity: 1)
        running.initialize(to: Atomic(false))
        let table = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: max(1, channels))
        target = .allocate(capacity: 1)
        target.initialize(to: ManualRenderingTarget(
            entry: nil, position: nil, table: table, channels: channels, maximumFrames: maximumFrames, running: running,
            buffersOffset: AudioBufferList.buffersOffset, input: AudioBuffers(channelPointers: nil, channelCount: 0),
            output: AudioBuffers(channelPointers: UnsafePointer(table), channelCount: channels)))
    }

    /// Points the target at a started backend. Thread: control, while nothing renders.
    func attach(entry: RenderEntry?, position: UnsafeMutablePointer<Int64>) {
        target.pointee.entry = entry
        target.pointee.position = position
        target.pointee.running.pointee.store(entry != nil, ordering: .releasing)
    }

    /// Thread: control, after the last render.
    func detach() {
        target.pointee.running.pointee.store(false, ordering: .releasing)
        target.pointee.entry = nil
        target.pointee.position = nil
    }

    deinit {
        target.pointee.table.deallocate()
        target.pointee.running.deinitialize(count: 1)
        target.pointee.running.deallocate()
        target.deinitialize(count: 1)
        target.deallocate()
    }
}
