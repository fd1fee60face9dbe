import Foundation
import Testing
import TrellisAV
import TrellisTestSupport

@Suite("AVAudioConverter")
struct AVAudioConverterTests {
    private func sine(_ hertz: Double, rate: Double, frames: Int, channels: AVAudioChannelCount = 1) -> AVAudioPCMBuffer {
        let buffer = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: rate, channels: channels)!, frameCapacity: AVAudioFrameCount(frames))!
        buffer.frameLength = AVAudioFrameCount(frames)
        for channel in 0..<Int(channels) {
            for frame in 0..<frames { buffer.floatChannelData![channel][frame] = 0.5 * Float(sin(2 * .pi * hertz * Double(frame) / rate)) }
        }
        return buffer
    }

    @Test("44.1 kHz to 48 kHz through the input block: the tone stays at its frequency and the length scales by 48/44.1")
    func resamples() throws {
        let input = sine(1_000, rate: 44_100, frames: 44_100)
        let converter = try #require(AVAudioConverter(from: input.format, to: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!))
        let output = AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: 4_096)!
        var given = false, samples: [Float] = []
        while true {
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { _, status in
                if given { status.pointee = .endOfStream; return nil }
                given = true
                status.pointee = .haveData
                return input
            }
            #expect(status != .error, "\(String(describing: error))")
            samples += UnsafeBufferPointer(start: output.floatChannelData![0], count: Int(output.frameLength))
            if status == .endOfStream || status == .error { break }
        }
        #expect(abs(samples.count - 48_000) <= 1)
        #expect(abs(peakHertz(samples[8_000..<24_000], low: 950, high: 1_050) - 1_000) < 0.5)
    }

    @Test("float to interleaved Int16 at one rate: each sample round(x · 32768), mono copied to both channels")
    func convertsSampleType() throws {
        let input = sine(440, rate: 48_000, frames: 1_000)
        let format = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
        let converter = try #require(AVAudioConverter(from: input.format, to: format))
        let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 1_000)!
        try converter.convert(to: output, from: input)
        #expect(output.frameLength == 1_000)
        let ints = output.int16ChannelData![0]
        for frame in 0..<1_000 {
            let expected = Int16((Double(input.floatChannelData![0][frame]) * 32_768).rounded())
            #expect(ints[frame * 2] == expected && ints[frame * 2 + 1] == expected)
        }
    }

    @Test("the one-buffer form refuses a change of rate and says which form to use")
    func refusesRateInOneGo() throws {
        let input = sine(440, rate: 44_100, frames: 100)
        let converter = try #require(AVAudioConverter(from: input.format, to: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!))
        let output = AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: 200)!
        let error = #expect(throws: AVAudioError.self) { try converter.convert(to: output, from: input) }
        #expect(error?.message.contains("withInputFrom") == true)
    }

    @Test("downmix averages stereo into mono")
    func downmixes() throws {
        let input = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, frameCapacity: 4)!
        input.frameLength = 4
        for frame in 0..<4 {
            input.floatChannelData![0][frame] = Float(frame) / 4
            input.floatChannelData![1][frame] = -1
        }
        let converter = try #require(AVAudioConverter(from: input.format, to: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!))
        converter.downmix = true
        let output = AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: 4)!
        try converter.convert(to: output, from: input)
        let mixed = (0..<4).map { output.floatChannelData![0][$0] }
        let expected: [Float] = [-0.5, -0.375, -0.25, -0.125]
        #expect(mixed == expected)
    }
}
