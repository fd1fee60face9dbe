import TrellisCore

/// MIDI played from a control thread: each message `send` queues leaves the unit's MIDI
/// output at the start of the next cycle, in order. No audio. What TrellisAV's
/// `startNote` and its kin send an instrument through.
///
/// Thread: `send` from one control thread at a time; the kernel on the audio thread.
public final class MIDISource: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(type: ComponentType.generator, subtype: "mdsr", manufacturer: Manufacturer.trellis)

    private let queue = SPSCRing<MIDIMessage>(capacity: 1_024)

    public init() {
        super.init(description: Self.componentDescription, shortName: "midi-source", inputs: [], outputs: [])
    }

    public override func midiBusCount(_ scope: Scope) -> Int { scope == .output ? 1 : 0 }

    public override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(MIDISourceKernel(queue: queue.end), render: { MIDISourceKernel.render($0, $1) }, reset: { _ in })
    }

    /// Queues `message` for the next cycle; false when 1,024 wait already.
    @discardableResult
    public func send(_ message: MIDIMessage) -> Bool { queue.push(message) }
}

/// Moves the queued messages to the MIDI output, at the cycle's first frame.
struct MIDISourceKernel {
    let queue: SPSCRingEnd<MIDIMessage>

    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        let queue = state.assumingMemoryBound(to: Self.self).pointee.queue
        let outputs = context.assumingMemoryBound(to: RenderContext.self).pointee.midiOutputs
        while let message = queue.pop() {
            // Without a connected output the messages are dropped, as a cable to nowhere.
            if outputs.count > 0 {
                _ = outputs[0].append(status: message.status, data1: message.data1, data2: message.data2, length: message.length, offset: 0)
            }
        }
        return RenderStatus.ok.rawValue
    }
}
