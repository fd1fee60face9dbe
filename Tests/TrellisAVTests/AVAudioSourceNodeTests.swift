import Foundation
import Testing
@testable import TrellisAV
import TrellisCore

@Suite("AVAudioSourceNode")
struct AVAudioSourceNodeTests {
    /// A block as the audio thread's rules want it: its phase in memory of its own, every
    /// channel the same sine, the buffers indexed (an unoptimized build's `for buffer in`
    /// over the list allocates a coroutine frame per step; an optimized one does not).
    private static func sineBlock(phase: UnsafeMutablePointer<Double>) -> AVAudioSourceNodeRenderBlock {
        { _, _, frameCount, outputData in
            let buffers = UnsafeMutableAudioBufferListPointer(outputData)
            for frame in 0..<Int(frameCount) {
                let value = Float(sin(phase.pointee))
                phase.pointee += 2 * Double.pi * 440 / 48_000
                for index in 0..<buffers.count { UnsafeMutableBufferPointer<Float>(buffers[index])[frame] = value }
            }
            return noErr
        }
    }

    @Test("what the block writes is what the engine renders, sample for sample, in time order")
    func rendersTheBlock() throws {
        let phase = UnsafeMutablePointer<Double>.allocate(capacity: 1)
        phase.initialize(to: 0)
        defer { phase.deallocate() }
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, maximumFrameCount: 1_000)
        let source = AVAudioSourceNode(renderBlock: Self.sineBlock(phase: phase))
        engine.attach(source)
        engine.connect(source, to: engine.outputNode, format: nil)
        try engine.start()
        let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 1_000)!
        var expectedPhase = 0.0
        for _ in 0..<5 {
            #expect(try engine.renderOffline(1_000, to: buffer) == .success)
            for frame in 0..<1_000 {
                let expected = Float(sin(expectedPhase))
                expectedPhase += 2 * Double.pi * 440 / 48_000
                #expect(buffer.floatChannelData![0][frame] == expected && buffer.floatChannelData![1][frame] == expected)
            }
        }
    }

    @Test("a conforming block renders through the node's kernel with no allocation and no free")
    func noAllocation() throws {
        let phase = UnsafeMutablePointer<Double>.allocate(capacity: 1)
        phase.initialize(to: 0)
        defer { phase.deallocate() }
        let node = AVAudioSourceNode(renderBlock: Self.sineBlock(phase: phase))
        try node.unit.initialize()
        defer { node.unit.uninitialize() }
        let kernel = node.unit.realtime.kernel
        let outputs = TrellisCore.AudioBufferList(channelCount: 2, frameCapacity: 256)
        let bus = UnsafeMutablePointer<AudioBuffers>.allocate(capacity: 1)
        bus.initialize(to: outputs[0])
        defer { bus.deallocate() }
        var context = RenderContext(frameCount: 256, timeStamp: TrellisCore.AudioTimeStamp(sampleTime: 0),
                                    inputs: BusBuffers(buses: nil, count: 0), outputs: BusBuffers(buses: UnsafePointer(bus), count: 1))
        _ = withUnsafePointer(to: &context) { kernel.render($0) }
        var least = UInt64.max
        for _ in 0..<3 where least > 0 {
            var status = RenderStatus.ok
            least = min(least, allocationsCounted { status = withUnsafePointer(to: &context) { kernel.render($0) } })
            #expect(status == .ok)
        }
        #expect(least == 0)
        #expect(outputs[0][0][10] == outputs[0][1][10] && outputs[0][0][10] != 0)
    }
}
