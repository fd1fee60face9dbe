import Foundation
import Testing
@testable import TrellisAV
import TrellisTestSupport

private func ramp(_ count: Int, from start: Float) -> [Float] { (0..<count).map { start + Float($0) / 1_000 } }

/// A mono buffer holding `samples`.
private func buffer(_ samples: [Float]) -> AVAudioPCMBuffer {
    let buffer = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!, frameCapacity: AVAudioFrameCount(samples.count))!
    buffer.frameLength = AVAudioFrameCount(samples.count)
    for (frame, sample) in samples.enumerated() { buffer.floatChannelData![0][frame] = sample }
    return buffer
}

@Suite("AVAudioEngine: sink nodes, fan-out and the manual rendering block")
struct AVAudioEngineNodesTests {
    @Test("a sink node's block receives every frame of what is connected to it, in order, though nothing follows it")
    func sinkReceivesItsInput() throws {
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, maximumFrameCount: 512)
        let received = UnsafeMutablePointer<Float>.allocate(capacity: 4_096)
        let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        count.initialize(to: 0)
        defer { received.deallocate(); count.deallocate() }
        let sink = AVAudioSinkNode { _, frames, input in
            let buffers = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: input))
            let left = buffers[0].mData!.assumingMemoryBound(to: Float.self)
            for frame in 0..<Int(frames) where count.pointee < 4_096 {
                received[count.pointee] = left[frame]
                count.pointee += 1
            }
            return noErr
        }
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.attach(sink)
        engine.connect(player, to: sink, format: nil)
        try engine.start()
        defer { engine.stop() }
        let samples = ramp(1_500, from: 1)
        player.scheduleBuffer(buffer(samples))
        player.play()
        let output = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 512)!
        for _ in 0..<4 { #expect(try engine.renderOffline(512, to: output) == .success) }
        #expect(count.pointee == 2_048)
        #expect(Array(UnsafeBufferPointer(start: received, count: 1_500)) == samples)
        #expect(UnsafeBufferPointer(start: received + 1_500, count: 548).allSatisfy { $0 == 0 })
        #expect(engine.outputNode.numberOfInputs == 1 && sink.numberOfOutputs == 0)
    }

    @Test("one output connected to several points feeds each the whole signal, and the connection points say so")
    func fanOut() throws {
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, maximumFrameCount: 512)
        let player = AVAudioPlayerNode(), mixer = engine.mainMixerNode
        engine.attach(player)
        engine.connect(player, to: [AVAudioConnectionPoint(node: mixer, bus: 0), AVAudioConnectionPoint(node: mixer, bus: 1)], fromBus: 0, format: nil)
        let points = engine.outputConnectionPoints(for: player, outputBus: 0)
        #expect(points.map(\.bus) == [0, 1] && points.allSatisfy { $0.node === mixer })
        #expect(engine.inputConnectionPoint(for: mixer, inputBus: 1)?.node === player)
        try engine.start()
        defer { engine.stop() }
        let samples = ramp(400, from: 0.25)
        player.scheduleBuffer(buffer(samples))
        player.play()
        let output = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 512)!
        #expect(try engine.renderOffline(512, to: output) == .success)
        let left = Array(UnsafeBufferPointer(start: output.floatChannelData![0], count: 400))
        let right = Array(UnsafeBufferPointer(start: output.floatChannelData![1], count: 400))
        #expect(left == samples.map { $0 + $0 } && right == left)
        engine.disconnectNodeOutput(player, bus: 0)
        #expect(engine.outputConnectionPoints(for: player, outputBus: 0).isEmpty)
        #expect(engine.inputConnectionPoint(for: mixer, inputBus: 1) == nil)
    }

    @Test("the manual rendering block renders into an AudioBufferList what renderOffline would, allocating nothing in realtime mode")
    func manualRenderingBlock() throws {
        let engine = AVAudioEngine()
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 256)
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.outputNode, format: nil)
        let block = engine.manualRenderingBlock
        let output = BlockOutput(format: format, frames: 256)
        #expect(output.render(block, 256).0 == .cannotDoInCurrentContext)
        try engine.start()
        defer { engine.stop() }
        let samples = ramp(2_048, from: 1)
        player.scheduleBuffer(buffer(samples))
        player.play()
        var heard: [Float] = []
        var least = UInt64.max
        for _ in 0..<8 {
            var result = (AVAudioEngineManualRenderingStatus.error, OSStatus(0))
            least = min(least, allocationsCounted { result = output.render(block, 256) })
            #expect(result.0 == .success && result.1 == noErr)
            heard += output.samples(1, 256)
        }
        #expect(heard == samples)
        #expect(least == 0)
        #expect(engine.manualRenderingSampleTime == 2_048)
        #expect(output.render(block, 512).0 == .error)
    }
}
