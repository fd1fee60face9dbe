import Foundation
import Testing
@testable import TrellisAV
import TrellisTestSupport

private let stereo = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

/// `frames` frames of a 0.5-amplitude sine at `hertz` on both channels.
private func tone(_ hertz: Double, frames: Int) -> AVAudioPCMBuffer {
    let buffer = AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: AVAudioFrameCount(frames))!
    buffer.frameLength = AVAudioFrameCount(frames)
    for frame in 0..<frames {
        let sample = Float(0.5 * sin(2 * Double.pi * hertz * Double(frame) / 48_000))
        buffer.floatChannelData![0][frame] = sample
        buffer.floatChannelData![1][frame] = sample
    }
    return buffer
}

/// An offline engine playing `buffer` through `effect`; the left channel of `frames` frames.
private func render(_ buffer: AVAudioPCMBuffer, through effect: AVAudioNode, frames: Int, change: ((Int) -> Void)? = nil) throws -> [Float] {
    let engine = AVAudioEngine()
    try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 512)
    let player = AVAudioPlayerNode()
    engine.attach(player)
    engine.attach(effect)
    engine.connect(player, to: effect, format: stereo)
    engine.connect(effect, to: engine.mainMixerNode, format: stereo)
    player.scheduleBuffer(buffer)
    try engine.start()
    defer { engine.stop() }
    player.play()
    let output = AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 512)!
    var left: [Float] = []
    while left.count < frames {
        change?(left.count)
        _ = try engine.renderOffline(512, to: output)
        left += UnsafeBufferPointer(start: output.floatChannelData![0], count: 512)
    }
    return left
}

/// Where `signal` peaks within 30 Hz of `expected` (a wider scan is slow in a debug build;
/// a tone elsewhere peaks at the window's edge, 30 Hz off).
private func hertz(_ signal: ArraySlice<Float>, near expected: Double) -> Double {
    peakHertz(signal, low: expected - 30, high: expected + 30)
}

/// The last frame louder than a hundredth of full scale.
private func end(of signal: [Float]) -> Int { (signal.lastIndex { abs($0) > 0.01 } ?? 0) + 1 }

@Suite("AVAudioPlayerNode read at another rate by the time effect it feeds")
struct PlayerNodeRateTests {
    @Test("varispeed at rate r plays a tone r times higher and 1/r as long", arguments: [2.0, 0.5, 1.5])
    func varispeed(rate: Double) throws {
        let varispeed = AVAudioUnitVarispeed()
        varispeed.rate = Float(rate)
        let heard = try render(tone(440, frames: 24_000), through: varispeed, frames: 24_000 * 2 + 4_096)
        let length = Double(end(of: heard))
        #expect(abs(length - 24_000 / rate) < 64, "\(length) frames")
        let middle = Int(length / 2)
        #expect(abs(hertz(heard[(middle - 2_048)..<(middle + 2_048)], near: 440 * rate) - 440 * rate) < 2)
    }

    @Test("time-pitch at rate r keeps a tone's pitch and plays it 1/r as long (plus the stretcher's latency)", arguments: [2.0, 0.5])
    func timePitchRate(rate: Double) throws {
        let timePitch = AVAudioUnitTimePitch()
        timePitch.rate = Float(rate)
        let heard = try render(tone(440, frames: 24_000), through: timePitch, frames: 24_000 * 2 + 16_384)
        let start = try #require(heard.firstIndex { abs($0) > 0.01 })
        let length = Double(end(of: heard) - start)
        // Within 5 %, and a stretcher window of ramp-in and tail.
        #expect(abs(length - 24_000 / rate) < 0.05 * 24_000 / rate + 4_096, "\(length) frames")
        let middle = start + Int(length / 2)
        #expect(abs(hertz(heard[(middle - 2_048)..<(middle + 2_048)], near: 440) - 440) < 3)
    }

    @Test("time-pitch's pitch alone moves a tone by its cents at the same speed")
    func timePitchPitch() throws {
        let timePitch = AVAudioUnitTimePitch()
        timePitch.pitch = -700
        let heard = try render(tone(600, frames: 24_000), through: timePitch, frames: 40_960)
        let start = try #require(heard.firstIndex { abs($0) > 0.01 })
        #expect(abs(Double(end(of: heard) - start) - 24_000) < 1_200)
        let lowered = 600 * pow(2, -700.0 / 1200)
        #expect(abs(hertz(heard[(start + 8_192)..<(start + 16_384)], near: lowered) - lowered) < 3)
    }

    @Test("a rate changed while playing takes effect within a cycle")
    func rateChangeWhilePlaying() throws {
        let varispeed = AVAudioUnitVarispeed()
        let heard = try render(tone(440, frames: 96_000), through: varispeed, frames: 20_480) { frame in
            if frame == 10_240 { varispeed.rate = 2 }
        }
        #expect(abs(hertz(heard[2_048..<10_240], near: 440) - 440) < 2)
        #expect(abs(hertz(heard[11_264..<19_456], near: 880) - 880) < 2)
    }

    @Test("reading at another rate allocates nothing on the rendering thread, varispeed or stretched")
    func allocatesNothing() throws {
        for keepsPitch in [false, true] {
            let engine = AVAudioEngine()
            try engine.enableManualRenderingMode(.realtime, format: stereo, maximumFrameCount: 256)
            let player = AVAudioPlayerNode()
            let effect: AVAudioNode = keepsPitch ? AVAudioUnitTimePitch() : AVAudioUnitVarispeed()
            if let timePitch = effect as? AVAudioUnitTimePitch { timePitch.rate = 1.5 }
            if let varispeed = effect as? AVAudioUnitVarispeed { varispeed.rate = 1.5 }
            engine.attach(player)
            engine.attach(effect)
            engine.connect(player, to: effect, format: stereo)
            engine.connect(effect, to: engine.outputNode, format: stereo)
            player.scheduleBuffer(tone(440, frames: 48_000), at: nil, options: .loops)
            try engine.start()
            defer { engine.stop() }
            player.play()
            let block = engine.manualRenderingBlock
            let output = BlockOutput(format: stereo, frames: 256)
            for _ in 0..<16 { _ = output.render(block, 256) }
            var least = UInt64.max
            for _ in 0..<16 { least = min(least, allocationsCounted { _ = output.render(block, 256) }) }
            #expect(least == 0, "keepsPitch \(keepsPitch)")
            #expect(output.samples(0, 256).contains { abs($0) > 0.1 })
        }
    }
}
