import TrellisCore

/// Converter's real-time half: each output channel copies, averages or silences input
/// channels as the unit's table says, which is in the kernel storage's arena. Thread:
/// audio.
struct ConverterKernel: UnitKernel {
    /// Per output channel: an input channel, `ChannelMap.silence` or `ChannelMap.mixAll`.
    let table: UnsafeMutablePointer<Int>
    let outputChannels: Int

    mutating func process(_ context: RenderContext) -> RenderStatus {
        let input = context.inputs[0], output = context.outputs[0]
        let frames = context.frameCount
        for channel in 0..<min(outputChannels, output.channelCount) {
            let destination = output[channel]
            let entry = table[channel]
            if entry >= 0 && entry < input.channelCount {
                copySamples(from: input[entry], to: destination, count: frames)
            } else if entry == ChannelMap.mixAll && input.channelCount > 0 {
                copySamples(from: input[0], to: destination, count: frames)
                for source in 1..<max(1, input.channelCount) {
                    MixKernels.add(input[source], to: destination, gain: 1, count: frames)
                }
                MixKernels.scale(destination, into: destination, gain: 1 / Float(input.channelCount), count: frames)
            } else {
                destination.update(repeating: 0, count: frames)
            }
        }
        return .ok
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
