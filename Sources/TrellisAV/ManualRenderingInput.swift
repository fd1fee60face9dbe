import TrellisCore

public typealias AVAudioIONodeInputBlock = (_ inNumberOfFrames: AVAudioFrameCount) -> UnsafePointer<AudioBufferList>?

/// The input node's block for manual rendering, with the format it supplies. Kept by
/// the input node; a running manual rendering reaches it unretained.
final class ManualRenderingInput: @unchecked Sendable {
    let format: AVAudioFormat
    let block: AVAudioIONodeInputBlock
    var channels: Int { Int(format.channelCount) }

    static let maximumChannels = 64

    init(format: AVAudioFormat, block: @escaping AVAudioIONodeInputBlock) {
        self.format = format
        self.block = block
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
}

extension AVAudioInputNode {
    /// Gives the input node its samples while the engine renders manually: each render
    /// calls `block` once, on the rendering thread, for the frames it renders. `format`
    /// is deinterleaved 32-bit float at the manual rendering rate, 1 ... 64 channels;
    /// the block returns one buffer per channel with at least that many frames, valid
    /// until its next call. Returning nil or fewer frames renders the input as silence,
    /// and the render returns `.insufficientDataFromInputNode` (the other sources still
    /// play). In realtime mode the block runs under the audio thread's rules (see
    /// `AVAudioSourceNode`). The node's output, and what it feeds, take the format's
    /// channel count. The block is kept across switches to live rendering and back.
    /// False, changing nothing, when the format is not one of these or the engine runs.
    public func setManualRenderingInputPCMFormat(_ format: AVAudioFormat, inputBlock block: @escaping AVAudioIONodeInputBlock) -> Bool {
        guard format.commonFormat == .pcmFormatFloat32, !format.isInterleaved,
              (1...ManualRenderingInput.maximumChannels).contains(Int(format.channelCount)) else { return false }
        if let engine, engine.isInManualRenderingMode, engine.manualRenderingFormat.sampleRate != format.sampleRate { return false }
        if let engine, engine.isRunning { return false }
        manualInput = ManualRenderingInput(format: format, block: block)
        guard let engine else { return true }
        engine.graph.uninitialize()
        let points = engine.outputConnectionPoints(for: self, outputBus: 0)
        if points.count > 1 {
            engine.connect(self, to: points, fromBus: 0, format: format)
        } else if let point = points.first, let node = point.node {
            engine.connect(self, to: node, fromBus: 0, toBus: point.bus, format: format)
        } else {
            try? engine.setChannels(Int(format.channelCount), of: unit, .output, 0)
        }
        return true
    }
}
