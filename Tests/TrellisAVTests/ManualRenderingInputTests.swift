import Foundation
import Testing
@testable import TrellisAV

/// Frames an input block hands out, one slice per call, from a sequence computed per channel.
private final class Feed: @unchecked Sendable {
    let list: UnsafeMutableAudioBufferListPointer
    let samples: [UnsafeMutablePointer<Float>]
    let total: Int
    var position = 0

    init(channels: Int, total: Int, sample: (Int, Int) -> Float) {
        list = AudioBufferList.allocate(maximumBuffers: channels)
        self.total = total
        samples = (0..<channels).map { channel in
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: total)
            for frame in 0..<total { pointer[frame] = sample(channel, frame) }
            return pointer
        }
    }

    deinit {
        samples.forEach { $0.deallocate() }
        UnsafeMutableRawPointer(list.unsafeMutablePointer).deallocate()
    }

    /// The next `frames`, or nil once fewer are left.
    func next(_ frames: AVAudioFrameCount) -> UnsafePointer<AudioBufferList>? {
        guard position + Int(frames) <= total else { return nil }
        for channel in 0..<samples.count {
            list[channel] = AudioBuffer(mNumberChannels: 1, mDataByteSize: frames * 4, mData: UnsafeMutableRawPointer(samples[channel] + position))
        }
        position += Int(frames)
        return UnsafePointer(list.unsafeMutablePointer)
    }

    func expected(_ channel: Int, _ range: Range<Int>) -> [Float] { Array(UnsafeBufferPointer(start: samples[channel] + range.lowerBound, count: range.count)) }
}

private let stereo = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

private func channel(_ buffer: AVAudioPCMBuffer, _ channel: Int) -> [Float] {
    Array(UnsafeBufferPointer(start: buffer.floatChannelData![channel], count: Int(buffer.frameLength)))
}

@Suite("AVAudioInputNode in manual rendering")
struct ManualRenderingInputTests {
    @Test("renderOffline renders what the input block supplies, through the main mixer, sample for sample")
    func inputBlockFeedsTheGraph() throws {
        let engine = AVAudioEngine()
        engine.connect(engine.inputNode, to: engine.mainMixerNode, format: stereo)
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 512)
        let feed = Feed(channels: 2, total: 2_048) { channel, frame in Float(sin(Double(frame) * (channel == 0 ? 0.01 : 0.037))) }
        #expect(engine.inputNode.setManualRenderingInputPCMFormat(stereo) { feed.next($0) })
        try engine.start()
        defer { engine.stop() }
        let output = AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 512)!
        for slice in 0..<4 {
            #expect(try engine.renderOffline(512, to: output) == .success)
            let frames = slice * 512..<(slice + 1) * 512
            #expect(channel(output, 0) == feed.expected(0, frames) && channel(output, 1) == feed.expected(1, frames))
        }
    }

    @Test("when the block has no data the input is silent, the other sources still play, and the status says so")
    func insufficientData() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: stereo)
        engine.connect(engine.inputNode, to: engine.mainMixerNode, format: stereo)
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 256)
        let feed = Feed(channels: 2, total: 256) { _, _ in 0.5 }
        #expect(engine.inputNode.setManualRenderingInputPCMFormat(stereo) { feed.next($0) })
        let tone = AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 256)!
        tone.frameLength = 256
        for c in 0..<2 { for frame in 0..<256 { tone.floatChannelData![c][frame] = 0.25 } }
        try engine.start()
        defer { engine.stop() }
        player.scheduleBuffer(tone, at: nil, options: .loops)
        player.play()
        let output = AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 256)!
        #expect(try engine.renderOffline(256, to: output) == .success)
        #expect(channel(output, 0).allSatisfy { $0 == 0.75 })
        #expect(try engine.renderOffline(256, to: output) == .insufficientDataFromInputNode)
        #expect(output.frameLength == 256 && channel(output, 1).allSatisfy { $0 == 0.25 })
        #expect(engine.manualRenderingSampleTime == 512)
    }

    @Test("a mono block makes the input node and what it feeds mono")
    func monoBlock() throws {
        let engine = AVAudioEngine()
        let sink = AVAudioMixerNode()
        engine.attach(sink)
        engine.connect(engine.inputNode, to: sink, format: nil)
        engine.connect(sink, to: engine.outputNode, format: stereo)
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 256)
        let mono = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        let feed = Feed(channels: 1, total: 256) { _, frame in Float(frame) / 256 }
        #expect(engine.inputNode.setManualRenderingInputPCMFormat(mono) { feed.next($0) })
        #expect(engine.inputNode.outputFormat(forBus: 0).channelCount == 1)
        #expect(sink.inputFormat(forBus: 0).channelCount == 1)
        try engine.start()
        defer { engine.stop() }
        let output = AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 256)!
        #expect(try engine.renderOffline(256, to: output) == .success)
        let left = channel(output, 0), right = channel(output, 1), fed = feed.expected(0, 0..<256)
        #expect(left == right)
        let gain = left[128] / fed[128]
        #expect(gain > 0.5 && zip(left, fed).allSatisfy { abs($0 - $1 * gain) < 1e-6 })
    }

    @Test("the block is refused for interleaved or integer formats, another rate, or while the engine runs")
    func refusedFormats() throws {
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 256)
        let input = engine.inputNode
        let interleaved = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 48_000, channels: 2, interleaved: true)!
        let integer = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: false)!
        let otherRate = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        #expect(!input.setManualRenderingInputPCMFormat(interleaved) { _ in nil })
        #expect(!input.setManualRenderingInputPCMFormat(integer) { _ in nil })
        #expect(!input.setManualRenderingInputPCMFormat(otherRate) { _ in nil })
        engine.connect(input, to: engine.mainMixerNode, format: stereo)
        try engine.start()
        defer { engine.stop() }
        #expect(!input.setManualRenderingInputPCMFormat(stereo) { _ in nil })
    }

    @Test("in realtime mode the manual rendering block reads the input block on the caller's thread, allocating nothing")
    func realtimeInput() throws {
        let engine = AVAudioEngine()
        engine.connect(engine.inputNode, to: engine.outputNode, format: stereo)
        try engine.enableManualRenderingMode(.realtime, format: stereo, maximumFrameCount: 256)
        let feed = Feed(channels: 2, total: 2_048) { channel, frame in Float(frame * (channel + 1)) / 4_096 }
        #expect(engine.inputNode.setManualRenderingInputPCMFormat(stereo) { feed.next($0) })
        try engine.start()
        defer { engine.stop() }
        let block = engine.manualRenderingBlock
        let output = BlockOutput(format: stereo, frames: 256)
        var heard: [Float] = []
        var least = UInt64.max
        for _ in 0..<8 {
            var result = AVAudioEngineManualRenderingStatus.error
            least = min(least, allocationsCounted { result = output.render(block, 256).0 })
            #expect(result == .success)
            heard += output.samples(1, 256)
        }
        #expect(heard == feed.expected(1, 0..<2_048))
        #expect(least == 0)
        #expect(output.render(block, 256).0 == .insufficientDataFromInputNode)
    }
}
