import Foundation
import TrellisCore

public typealias AVAudioSinkNodeReceiverBlock = (
    _ timestamp: UnsafePointer<AudioTimeStamp>, _ frameCount: AVAudioFrameCount, _ inputData: UnsafePointer<AudioBufferList>
) -> OSStatus

/// A node whose input a block receives, as AVFAudio's `AVAudioSinkNode`: connect the
/// input node (or any node) to it, and the block sees every frame, once per cycle.
///
/// The block runs on the audio thread, under the rules `AVAudioSourceNode`'s states: no
/// allocating, freeing, locking, waiting, I/O or logging; copy what it needs into memory
/// it owns (a ring another thread drains) and return. The buffers are valid only during
/// the call. Apple's sink works only while the engine renders to a device; this one works
/// in manual rendering too. It has no output.
public final class AVAudioSinkNode: AVAudioNode, @unchecked Sendable {
    /// A stereo sink (its channel count follows what is connected to it).
    public init(receiverBlock block: @escaping AVAudioSinkNodeReceiverBlock) {
        super.init(unit: SinkBlockUnit(channels: 2, block: block))
    }
}

/// The unit of a sink node: one input, no output, its kernel calling the block.
final class SinkBlockUnit: AudioUnitBase, @unchecked Sendable {
    static let componentDescription = ComponentDescription(type: ComponentType.effect, subtype: "snkb", manufacturer: Manufacturer.trellis)

    /// The block, kept alive here; the kernel reaches it unretained.
    private let box: SinkBlockBox
    /// What the kernel hands the block, made once and freed with the unit.
    private let memory = BlockCallMemory(maximumBuffers: 64)

    init(channels: Int, block: @escaping AVAudioSinkNodeReceiverBlock) {
        box = SinkBlockBox(block: block)
        super.init(description: Self.componentDescription, shortName: "sink-block", inputs: [channels], outputs: [])
    }

    deinit { kernelStorage = nil }

    override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(SinkBlockKernel(block: Unmanaged.passUnretained(box), call: memory.call),
                                      render: { SinkBlockKernel.render($0, $1) }, reset: { _ in })
    }
}

final class SinkBlockBox: @unchecked Sendable {
    let block: AVAudioSinkNodeReceiverBlock
    init(block: @escaping AVAudioSinkNodeReceiverBlock) { self.block = block }
}

/// Calls the block with the cycle's input buffers as an `AudioBufferList`.
struct SinkBlockKernel {
    let block: Unmanaged<SinkBlockBox>
    let call: BlockCall

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        let kernel = state.assumingMemoryBound(to: Self.self).pointee
        let cycle = context.assumingMemoryBound(to: RenderContext.self)
        let frames = cycle.pointee.frameCount
        guard cycle.pointee.inputs.count > 0 else { return RenderStatus.ok.rawValue }
        kernel.call.point(at: cycle.pointee.inputs[0], frames: frames, time: cycle.pointee.timeStamp)
        // The fence: the user's block, which the documentation holds to the audio thread's rules.
        _ = _unsafePerformance {
            kernel.block._withUnsafeGuaranteedRef { $0.block(UnsafePointer(kernel.call.stamp), AVAudioFrameCount(frames), UnsafePointer(kernel.call.list)) }
        }
        return RenderStatus.ok.rawValue
    }
}
