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
    /// The cycle's buses: `inputTable` and `table`, repointed every slice.
    var input: AudioBuffers
    let output: AudioBuffers
    /// The input node's block while running, its channels, and what it gave this render.
    var inputSource: Unmanaged<ManualRenderingInput>?
    var inputChannels: Int
    let inputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let inputData: UnsafeMutablePointer<UnsafePointer<Float>>
    /// `maximumFrames` zeros: the input when the block has no data.
    let silence: UnsafeMutablePointer<Float>

    static let kAudioUnitErr_InvalidParameter: OSStatus = -10_878
    static let kAudioUnitErr_Uninitialized: OSStatus = -10_867

    /// Renders `frames` into `list`'s buffers in slices on the prepared grid, with
    /// nothing between slices. Thread: the caller's, real-time in realtime mode.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ target: UnsafePointer<ManualRenderingTarget>, frames: Int, list: UnsafeMutablePointer<AudioBufferList>,
                       error: UnsafeMutablePointer<OSStatus>?) -> AVAudioEngineManualRenderingStatus {
        // Fields are read in place: the target is larger than a copy is worth.
        guard target.pointee.running.pointee.load(ordering: .acquiring), let entry = target.pointee.entry, let position = target.pointee.position else {
            error?.pointee = kAudioUnitErr_Uninitialized
            return .cannotDoInCurrentContext
        }
        let channels = target.pointee.channels, inputChannels = target.pointee.inputChannels
        let table = target.pointee.table, inputTable = target.pointee.inputTable, inputData = target.pointee.inputData
        let buffers = (UnsafeMutableRawPointer(list) + target.pointee.buffersOffset).assumingMemoryBound(to: AudioBuffer.self)
        guard frames <= target.pointee.maximumFrames, Int(list.pointee.mNumberBuffers) == channels else {
            error?.pointee = kAudioUnitErr_InvalidParameter
            return .error
        }
        for channel in 0..<channels where buffers[channel].mData == nil || Int(buffers[channel].mDataByteSize) < frames &* 4 {
            error?.pointee = kAudioUnitErr_InvalidParameter
            return .error
        }
        let status = pullInput(target, frames: frames)
        let grid = Int64(max(1, target.pointee.maximumFrames))
        // The fence: the shim's C calls set a thread-local flag and the FPU's mode, nothing more.
        let floatState = _unsafePerformance { AudioThread.enter() }
        defer { _unsafePerformance { AudioThread.leave(restoring: floatState) } }
        // clock_gettime(CLOCK_MONOTONIC) is a vDSO read: no lock, no allocation.
        let host = _unsafePerformance { HostClock.now() }
        var offset = 0
        while offset < frames {
            let slice = min(frames &- offset, Int(grid &- position.pointee % grid))
            for channel in 0..<channels { table[channel] = buffers[channel].mData.unsafelyUnwrapped.assumingMemoryBound(to: Float.self) + offset }
            for channel in 0..<inputChannels { inputTable[channel] = UnsafeMutablePointer(mutating: inputData[channel] + offset) }
            var cycle = BackendCycle(
                frameCount: slice, timeStamp: TrellisCore.AudioTimeStamp(sampleTime: position.pointee, hostTime: host),
                input: target.pointee.input, output: target.pointee.output)
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
        return status
    }

    /// Asks the block for `frames` and writes each channel's samples to `data`; false
    /// (and `data` untouched) when it gave nil, too few buffers or too few frames.
    /// Thread: the rendering one, real-time in realtime mode.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func pull(_ input: Unmanaged<ManualRenderingInput>, frames: Int, channels: Int, buffersOffset: Int,
                     into data: UnsafeMutablePointer<UnsafePointer<Float>>) -> Bool {
        // The fence: the user's block, which the documentation holds to the audio thread's rules.
        let returned = _unsafePerformance { input._withUnsafeGuaranteedRef { $0.block(AVAudioFrameCount(frames)) } }
        guard let list = returned, Int(list.pointee.mNumberBuffers) >= channels else { return false }
        let buffers = (UnsafeRawPointer(list) + buffersOffset).assumingMemoryBound(to: AudioBuffer.self)
        for channel in 0..<channels where buffers[channel].mData == nil || Int(buffers[channel].mDataByteSize) < frames &* 4 {
            return false
        }
        for channel in 0..<channels {
            data[channel] = UnsafePointer(buffers[channel].mData.unsafelyUnwrapped.assumingMemoryBound(to: Float.self))
        }
        return true
    }

    /// Points `inputData` at the input block's samples, or at silence when it has none.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func pullInput(_ state: UnsafePointer<ManualRenderingTarget>, frames: Int) -> AVAudioEngineManualRenderingStatus {
        guard let source = state.pointee.inputSource else { return .success }
        let channels = state.pointee.inputChannels, data = state.pointee.inputData
        if pull(source, frames: frames, channels: channels, buffersOffset: state.pointee.buffersOffset, into: data) {
            return .success
        }
        for channel in 0..<channels { data[channel] = UnsafePointer(state.pointee.silence) }
        return .insufficientDataFromInputNode
    }
}

/// Owns a manual rendering's target for as long as the engine or a block it gave out lives.
final class ManualRenderingTargetBox: @unchecked Sendable {
    let target: UnsafeMutablePointer<ManualRenderingTarget>
    /// The input block the target reaches unretained, kept alive while attached.
    private var input: ManualRenderingInput?
    /// The target and its tables.
    private let memory = Arena()

    init(channels: Int, maximumFrames: Int) {
        let running = memory.takeAtomics(1, initial: false)
        let table = memory.take(max(1, channels), of: UnsafeMutablePointer<Float>.self)
        let silence = memory.take(max(1, maximumFrames), repeating: Float(0))
        let inputTable = memory.take(ManualRenderingInput.maximumChannels, of: UnsafeMutablePointer<Float>.self)
        let inputData = memory.take(ManualRenderingInput.maximumChannels, repeating: UnsafePointer(silence))
        target = memory.place(ManualRenderingTarget(
            entry: nil, position: nil, table: table, channels: channels, maximumFrames: maximumFrames, running: running,
            buffersOffset: AudioBufferList.buffersOffset, input: AudioBuffers(channelPointers: nil, channelCount: 0),
            output: AudioBuffers(channelPointers: UnsafePointer(table), channelCount: channels),
            inputSource: nil, inputChannels: 0, inputTable: inputTable, inputData: inputData, silence: silence))
    }

    /// Points the target at a started backend, and at the input node's block if it has
    /// one. Thread: control, while nothing renders.
    func attach(entry: RenderEntry?, position: UnsafeMutablePointer<Int64>, input: ManualRenderingInput?) {
        self.input = input
        let channels = input?.channels ?? 0
        target.pointee.inputSource = input.map { Unmanaged.passUnretained($0) }
        target.pointee.inputChannels = channels
        target.pointee.input = AudioBuffers(channelPointers: channels > 0 ? UnsafePointer(target.pointee.inputTable) : nil, channelCount: channels)
        target.pointee.entry = entry
        target.pointee.position = position
        target.pointee.running.pointee.store(entry != nil, ordering: .releasing)
    }

    /// Thread: control, after the last render.
    func detach() {
        target.pointee.running.pointee.store(false, ordering: .releasing)
        target.pointee.entry = nil
        target.pointee.position = nil
        target.pointee.inputSource = nil
        target.pointee.inputChannels = 0
        input = nil
    }
}
