import Foundation
import TrellisCore

public typealias AVAudioSourceNodeRenderBlock = (
    _ isSilence: UnsafeMutablePointer<ObjCBool>, _ timestamp: UnsafePointer<AudioTimeStamp>, _ frameCount: AVAudioFrameCount,
    _ outputData: UnsafeMutablePointer<AudioBufferList>
) -> OSStatus

/// A node whose samples a block writes, as AVFAudio's `AVAudioSourceNode`.
///
/// The block runs on the audio thread, once per cycle (or per piece of one), with one
/// deinterleaved float buffer per channel. Like Apple's, it must not allocate, free,
/// lock, wait, do I/O or log, and should touch only memory it owns outright (no class
/// references, whose retain and release are shared atomics): keep state in a pointer
/// made before the engine starts. A status other than `noErr`, or `isSilence` set,
/// plays silence for that call. In a debug build, index the buffer list
/// (`list[channel]`): iterating it with `for in` allocates there (Swift's unoptimized
/// generic iteration), though not in a release build.
public final class AVAudioSourceNode: AVAudioNode, @unchecked Sendable {
    /// A source of the engine's rate, stereo.
    public convenience init(renderBlock block: @escaping AVAudioSourceNodeRenderBlock) {
        self.init(channels: 2, block: block)
    }

    /// A source of `format`'s channel count (its rate is the engine's: the graph runs at one rate).
    public convenience init(format: AVAudioFormat, renderBlock block: @escaping AVAudioSourceNodeRenderBlock) {
        self.init(channels: Int(format.channelCount), block: block)
    }

    private init(channels: Int, block: @escaping AVAudioSourceNodeRenderBlock) {
        super.init(unit: SourceBlockUnit(channels: channels, block: block))
    }
}

/// The unit of a source node: no input, one output, its kernel calling the block.
final class SourceBlockUnit: AudioUnitBase, @unchecked Sendable {
    static let componentDescription = ComponentDescription(type: ComponentType.generator, subtype: "srcb", manufacturer: Manufacturer.trellis)

    /// The block, kept alive here; the kernel reaches it unretained.
    private let box: SourceBlockBox
    /// What the kernel hands the block, made once and freed with the unit.
    private let memory: BlockCallMemory
    private let silence: UnsafeMutablePointer<ObjCBool>
    private let silenceMemory = Arena(firstBlock: 64)

    init(channels: Int, block: @escaping AVAudioSourceNodeRenderBlock) {
        box = SourceBlockBox(block: block)
        memory = BlockCallMemory(maximumBuffers: channels)
        silence = silenceMemory.place(ObjCBool(false))
        super.init(description: Self.componentDescription, shortName: "source-block", inputs: [], outputs: [channels])
    }

    deinit {
        kernelStorage = nil
    }

    override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(SourceBlockKernel(block: Unmanaged.passUnretained(box), call: memory.call, silence: silence),
                                      render: { SourceBlockKernel.render($0, $1) }, reset: { _ in })
    }
}

final class SourceBlockBox: @unchecked Sendable {
    let block: AVAudioSourceNodeRenderBlock
    init(block: @escaping AVAudioSourceNodeRenderBlock) { self.block = block }
}

/// Calls the block with the cycle's output buffers as an `AudioBufferList`.
struct SourceBlockKernel {
    let block: Unmanaged<SourceBlockBox>
    let call: BlockCall
    let silence: UnsafeMutablePointer<ObjCBool>

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        let kernel = state.assumingMemoryBound(to: Self.self).pointee
        let cycle = context.assumingMemoryBound(to: RenderContext.self)
        let frames = cycle.pointee.frameCount
        let output = cycle.pointee.outputs[0]
        kernel.call.point(at: output, frames: frames, time: cycle.pointee.timeStamp)
        kernel.silence.pointee = ObjCBool(false)
        // The fence: the user's block, which the documentation holds to the audio thread's rules.
        let status = _unsafePerformance {
            kernel.block._withUnsafeGuaranteedRef { $0.block(kernel.silence, UnsafePointer(kernel.call.stamp), AVAudioFrameCount(frames), kernel.call.list) }
        }
        if status != noErr || kernel.silence.pointee.boolValue { output.clear(frameCount: frames) }
        return RenderStatus.ok.rawValue
    }
}
