import Testing
import TrellisAudioFile
import TrellisCore

@Suite("Reading")
struct ReaderTests {
    /// A mono int16 ramp whose frame n holds (n - 5000) / 32768, so every frame is unique.
    static func writeRamp(_ path: String, container: AudioFileContainer, frameCount: Int = 12_000) throws -> [Float] {
        let ramp = (0..<frameCount).map { Float($0 - 5000) / 32768 }
        try writeFile(path, container: container, sampleType: .int16, channels: [ramp])
        return ramp
    }

    @Test("seeking lands on the exact frame", arguments: [AudioFileContainer.wav, .aiff, .caf, .flac])
    func seekLandsOnFrame(_ container: AudioFileContainer) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("ramp.\(container.rawValue)")
        let ramp = try Self.writeRamp(path, container: container)
        let reader = try AudioFileReader(path: path)
        let buffer = AudioBufferList(channelCount: 1, frameCapacity: 3)
        for frame in [7777, 0, 11_997, 4096, 1] {
            try reader.seek(toFrame: frame)
            #expect(try reader.read(into: buffer[0], frameCount: 3) == 3)
            #expect(buffer.samples(channel: 0) == Array(ramp[frame..<frame + 3]), "frame \(frame)")
            #expect(reader.framePosition == frame + 3)
        }
    }

    @Test("seeking past the end is an error that names the frame and the file")
    func seekPastEnd() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("ramp.wav")
        _ = try Self.writeRamp(path, container: .wav, frameCount: 100)
        let reader = try AudioFileReader(path: path)
        let error = #expect(throws: AudioFileError.self) { try reader.seek(toFrame: 101) }
        #expect(error?.description.contains("101") == true)
        #expect(error?.path == path)
    }

    @Test("reading in odd-sized chunks gives the same samples as readAll")
    func oddChunksMatchReadAll() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chunks.flac")
        let frameCount = 20_011
        let left = sine(frequency: 441, amplitude: 0.8, sampleRate: 48_000, frameCount: frameCount)
        let right = sine(frequency: 97, amplitude: -0.6, sampleRate: 48_000, frameCount: frameCount)
        try writeFile(path, sampleType: .int24, channels: [left, right])
        let reader = try AudioFileReader(path: path)
        let whole = try reader.readAll()

        try reader.seek(toFrame: 0)
        let buffer = AudioBufferList(channelCount: 2, frameCapacity: 5000)
        var pieces: [[Float]] = [[], []]
        let sizes = [1, 7, 333, 4097, 5000, 13]
        var call = 0
        while true {
            let got = try reader.read(into: buffer[0], frameCount: sizes[call % sizes.count])
            call += 1
            if got == 0 { break }
            for channel in 0..<2 { pieces[channel] += buffer.samples(channel: channel, frameCount: got) }
        }
        #expect(whole[0].count == frameCount)
        #expect(pieces == whole)
    }

    @Test("a missing file's error names the path")
    func missingFile() {
        let path = "/nonexistent-trellis-dir/missing.wav"
        let error = #expect(throws: AudioFileError.self) { try AudioFileReader(path: path) }
        guard case .cannotOpen(let errorPath, _) = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(error?.description.contains(path) == true)
    }

    @Test("six channels written and read keep each channel in its place")
    func sixChannelsKeepTheirPlaces() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("six.caf")
        // Channel c, frame n holds (1000 c + n) / 32768: the value names its own place.
        let channels = (0..<6).map { channel in (0..<700).map { Float(1000 * channel + $0) / 32768 } }
        try writeFile(path, sampleType: .int16, channels: channels)
        let read = try AudioFileReader(path: path).readAll()
        #expect(read == channels)
    }

    @Test("buffers with the wrong channel count are refused")
    func wrongChannelCount() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("stereo.wav")
        try writeFile(path, sampleType: .int16, channels: [[0.5], [0.25]])
        let reader = try AudioFileReader(path: path)
        let buffer = AudioBufferList(channelCount: 1, frameCapacity: 4)
        #expect(throws: AudioFileError.channelCountMismatch(path: path, fileChannels: 2, bufferChannels: 1)) {
            try reader.read(into: buffer[0], frameCount: 1)
        }
    }

    @Test("reading after close throws closed")
    func readAfterClose() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mono.wav")
        try writeFile(path, sampleType: .int16, channels: [[0.5]])
        let reader = try AudioFileReader(path: path)
        reader.close()
        reader.close()
        let buffer = AudioBufferList(channelCount: 1, frameCapacity: 4)
        #expect(throws: AudioFileError.closed(path: path)) { try reader.read(into: buffer[0], frameCount: 1) }
    }
}
