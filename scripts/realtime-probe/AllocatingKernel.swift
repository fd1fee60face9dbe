// A kernel that breaks the render contract on purpose: it allocates an array in its
// render entry. scripts/check-realtime compiles this against the release build of
// TrellisCore with the checks on and expects the compiler to refuse it, which proves
// the checks are active and see kernel code shaped like Trellis' own.
import TrellisCore

struct AllocatingKernel: UnitKernel {
    var gain: Float = 1

    mutating func process(_ context: RenderContext) -> RenderStatus {
        let scratch = [Float](repeating: gain, count: context.frameCount)
        let output = context.outputs[0]
        for channel in 0..<output.channelCount {
            for frame in 0..<context.frameCount { output[channel][frame] = scratch[frame] }
        }
        return .ok
    }
}

extension AllocatingKernel {
    @_noAllocation @_noLocks
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
