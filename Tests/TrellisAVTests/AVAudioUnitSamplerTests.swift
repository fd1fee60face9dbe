import Foundation
import Testing
import TrellisAV
import TrellisTestSupport

@Suite("AVAudioUnitSampler, offline")
struct AVAudioUnitSamplerTests {
    /// A bank of one note: A4.wav, two seconds of 440 Hz.
    private func bank() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-av-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("A4.wav")
        let made = try runCapped("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", url.path, "synth", "2", "sine", "440", "gain", "-6"], addressSpace: 1 << 31, deadline: 60)
        #expect(made.exited && made.status == 0)
        return url
    }

    private func render(_ engine: AVAudioEngine, frames: Int) throws -> [Float] {
        let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 4_096)!
        var left: [Float] = []
        while left.count < frames {
            #expect(try engine.renderOffline(AVAudioFrameCount(min(4_096, frames - left.count)), to: buffer) == .success)
            left += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
        }
        return left
    }

    @Test("startNote plays the bank's note at its pitch from the next slice, an octave up at twice it; stopNote lets it fall silent")
    func playsNotes() throws {
        let sampler = AVAudioUnitSampler()
        try sampler.loadAudioFiles(at: [try bank()])
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, maximumFrameCount: 4_096)
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode, format: nil)
        try engine.start()
        #expect(try render(engine, frames: 4_096).allSatisfy { $0 == 0 })
        sampler.startNote(69, withVelocity: 127, onChannel: 0)
        let a4 = try render(engine, frames: 24_000)
        #expect(a4.prefix(64).contains { $0 != 0 })
        #expect(abs(peakHertz(a4[4_000..<20_000], low: 400, high: 480) - 440) < 0.5)
        sampler.stopNote(69, onChannel: 0)
        sampler.startNote(81, withVelocity: 127, onChannel: 0)
        let a5 = try render(engine, frames: 24_000)
        #expect(abs(peakHertz(a5[8_000..<24_000], low: 840, high: 920) - 880) < 1)
        sampler.stopNote(81, onChannel: 0)
        let after = try render(engine, frames: 96_000)
        #expect(after.suffix(4_800).allSatisfy { abs($0) < 1e-4 })
    }
}
