import TrellisCore

/// The real-time halves of the units that only move audio: generic output, graph
/// input, splitter and merger. They hold no state. Thread: audio.

/// Copies input bus 0 to output bus 0 (GenericOutput).
struct PassThroughKernel: UnitKernel {
    mutating func process(_ context: RenderContext) -> RenderStatus {
        context.outputs[0].copy(from: context.inputs[0], frameCount: context.frameCount)
        return .ok
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}

/// Does nothing: the engine fills the graph input's buses before the program runs, and
/// the program moves the MIDI of the MIDI port nodes, which have no audio.
struct IdleKernel: UnitKernel {
    mutating func process(_ context: RenderContext) -> RenderStatus { .ok }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}

/// Copies input bus 0 to every output bus (Splitter).
struct SplitterKernel: UnitKernel {
    mutating func process(_ context: RenderContext) -> RenderStatus {
        for bus in 0..<context.outputs.count {
            context.outputs[bus].copy(from: context.inputs[0], frameCount: context.frameCount)
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

/// Lays the input buses' channels, in order, onto output bus 0 (Merger).
struct MergerKernel: UnitKernel {
    mutating func process(_ context: RenderContext) -> RenderStatus {
        let output = context.outputs[0]
        var channel = 0
        for bus in 0..<context.inputs.count {
            let input = context.inputs[bus]
            for inputChannel in 0..<input.channelCount {
                copySamples(from: input[inputChannel], to: output[channel], count: context.frameCount)
                channel += 1
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
