import Foundation
import Testing
import TrellisAV
import TrellisTestSupport

/// What sox, an outside program, says about a file: its header and its samples.
private func sox(_ arguments: [String]) throws -> CappedRun {
    let run = try runCapped("/usr/bin/sox", arguments, addressSpace: 1 << 31, deadline: 60)
    #expect(run.exited && run.status == 0, "sox \(arguments): \(run.stderr)")
    return run
}

private func soxInfo(_ path: String, _ flag: String) throws -> String {
    try runCapped("/usr/bin/soxi", [flag, path], addressSpace: 1 << 31, deadline: 30).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The file's samples as sox decodes them to 32-bit float, interleaved.
private func soxSamples(_ path: String) throws -> [Float] {
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-av-\(UUID().uuidString).f32").path
    defer { try? FileManager.default.removeItem(atPath: raw) }
    _ = try sox([path, "-t", "f32", raw])
    let data = try Data(contentsOf: URL(fileURLWithPath: raw))
    return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}

private func temporaryURL(_ name: String) -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-av-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent(name)
}

/// A stereo buffer in the standard format: a sine on the left, its negative on the right.
private func sineBuffer(frames: Int, rate: Double = 48_000, hertz: Double = 440, level: Float = 0.5) -> AVAudioPCMBuffer {
    let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
    buffer.frameLength = AVAudioFrameCount(frames)
    for frame in 0..<frames {
        let value = level * Float(sin(2 * .pi * hertz * Double(frame) / rate))
        buffer.floatChannelData![0][frame] = value
        buffer.floatChannelData![1][frame] = -value
    }
    return buffer
}

@Suite("AVAudioFile")
struct AVAudioFileTests {
    @Test("a 16-bit WAV written from Apple's settings is what sox reads: its header, and each sample round(x · 32768)")
    func writesSixteenBitWAV() throws {
        let url = temporaryURL("sine.wav")
        let buffer = sineBuffer(frames: 4_800)
        do {
            let file = try AVAudioFile(forWriting: url, settings: [
                AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000.0, AVNumberOfChannelsKey: 2,
                AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false,
            ])
            #expect(file.processingFormat.isStandard)
            #expect(file.fileFormat.commonFormat == .pcmFormatInt16)
            try file.write(from: buffer)
            #expect(file.length == 4_800)
        }
        #expect(try soxInfo(url.path, "-b") == "16")
        #expect(try soxInfo(url.path, "-r") == "48000")
        #expect(try soxInfo(url.path, "-c") == "2")
        let decoded = try soxSamples(url.path)
        #expect(decoded.count == 9_600)
        for frame in 0..<4_800 {
            for channel in 0..<2 {
                let expected = Float((Double(buffer.floatChannelData![channel][frame]) * 32_768).rounded()) / 32_768
                #expect(decoded[frame * 2 + channel] == expected)
            }
        }
    }

    @Test("reading a 24-bit FLAC that sox made gives sox's own samples, a buffer at a time")
    func readsWhatSoxWrote() throws {
        let url = temporaryURL("tone.flac")
        _ = try sox(["-n", "-r", "44100", "-b", "24", "-c", "2", url.path, "synth", "0.5", "sine", "1000", "sine", "300", "gain", "-3"])
        let expected = try soxSamples(url.path)
        let file = try AVAudioFile(forReading: url)
        #expect(file.fileFormat.sampleRate == 44_100)
        #expect(file.fileFormat.channelCount == 2)
        #expect(file.fileFormat.settings[AVFormatIDKey] as? AudioFormatID == kAudioFormatFLAC)
        #expect(file.length == 22_050)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1_000)!
        var samples: [Float] = []
        while true {
            try file.read(into: buffer)
            if buffer.frameLength == 0 { break }
            for frame in 0..<Int(buffer.frameLength) {
                samples.append(buffer.floatChannelData![0][frame])
                samples.append(buffer.floatChannelData![1][frame])
            }
        }
        #expect(samples == expected)
        #expect(file.framePosition == 22_050)
    }

    @Test("a 16-bit file read into Int16 buffers gives its integers exactly, interleaved when asked")
    func readsIntegers() throws {
        let url = temporaryURL("ints.wav")
        _ = try sox(["-n", "-r", "48000", "-b", "16", "-c", "2", url.path, "synth", "0.1", "sine", "440", "sine", "660"])
        let expected = try soxSamples(url.path).map { Int16(($0 * 32_768).rounded()) }
        let file = try AVAudioFile(forReading: url, commonFormat: .pcmFormatInt16, interleaved: true)
        #expect(file.processingFormat.isInterleaved)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
        try file.read(into: buffer)
        #expect(buffer.stride == 2)
        #expect(buffer.floatChannelData == nil)
        let samples = Array(UnsafeBufferPointer(start: buffer.int16ChannelData![0], count: Int(buffer.frameLength) * 2))
        #expect(samples == expected)
    }

    @Test("framePosition moves the next read; a read at the end leaves frameLength 0")
    func seeks() throws {
        let url = temporaryURL("seek.wav")
        let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2])
        let written = sineBuffer(frames: 2_000)
        try file.write(from: written)
        file.close()
        let reader = try AVAudioFile(forReading: url)
        reader.framePosition = 1_500
        let buffer = AVAudioPCMBuffer(pcmFormat: reader.processingFormat, frameCapacity: 1_000)!
        try reader.read(into: buffer)
        #expect(buffer.frameLength == 500)
        #expect(buffer.floatChannelData![1][0] == written.floatChannelData![1][1_500])
        try reader.read(into: buffer)
        #expect(buffer.frameLength == 0)
    }

    @Test("formats Linux has no encoder for are refused with what is supported, and no file is made")
    func refusesAAC() throws {
        let url = temporaryURL("voice.m4a")
        let error = #expect(throws: AVAudioError.self) {
            _ = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1])
        }
        #expect(error?.message.contains("'aac '") == true)
        #expect(error?.message.contains("FLAC") == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("a FLAC format ID needs a .flac name, and says so")
    func containerFollowsFormat() throws {
        let error = #expect(throws: AVAudioError.self) {
            _ = try AVAudioFile(forWriting: temporaryURL("x.wav"), settings: [AVFormatIDKey: kAudioFormatFLAC])
        }
        #expect(error?.message.contains(".flac") == true)
    }

    @Test("Ogg Vorbis at AVAudioQuality.high comes back within Vorbis' error of what went in")
    func writesVorbis() throws {
        let url = temporaryURL("sine.ogg")
        let buffer = sineBuffer(frames: 48_000)
        do {
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatVorbis, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2, AVEncoderAudioQualityKey: AVAudioQuality.high.rawValue])
            try file.write(from: buffer)
        }
        let decoded = try soxSamples(url.path)
        #expect(decoded.count == 96_000)
        let error = (0..<48_000).map { abs(decoded[$0 * 2] - buffer.floatChannelData![0][$0]) }.max()!
        #expect(error < 0.02)
    }
}
