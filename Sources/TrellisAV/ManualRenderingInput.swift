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
