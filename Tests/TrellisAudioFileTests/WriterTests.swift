import Testing
import TrellisAudioFile
import TrellisCore

@Suite("Writing")
struct WriterTests {
    @Test("floats beyond full scale clip to the integer range, and NaN writes as zero")
    func clipping() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("clip.wav")
        try writeFile(path, sampleType: .int16, channels: [[1.5, -1.5, 1.0, -1.0, .nan, .infinity, -.infinity]])
        let read = try AudioFileReader(path: path).readAll()
        let top: Float = 32767.0 / 32768.0
        #expect(read == [[top, -1, top, -1, 0, top, -1]])
    }

    @Test("without dither, samples between integer steps round to the nearest step")
    func rounding() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("round.wav")
        let step: Float = 1.0 / 32768
        try writeFile(path, sampleType: .int16, dither: false, channels: [[0.4 * step, 0.6 * step, -0.6 * step, 100.3 * step]])
        let read = try AudioFileReader(path: path).readAll()
        #expect(read == [[0, step, -step, 100 * step]])
    }

    @Test("with dither, rounding is unbiased and within 1 LSB, and samples already on a step (silence too) stay exact")
    func dithering() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("dither.wav")
        let step: Float = 1.0 / 32768
        try writeFile(path, sampleType: .int16, channels: [Array(repeating: 0.25 * step, count: 100_000) + Array(repeating: 7 * step, count: 1_000) + Array(repeating: 0, count: 1_000)])
        let read = try AudioFileReader(path: path).readAll()[0]
        let between = read[..<100_000]
        #expect(between.allSatisfy { abs($0 - 0.25 * step) <= 1.25 * step }, "TPDF dither spans ±1 LSB")
        // Dither makes rounding unbiased: the mean of the steps is the value itself.
        let mean = between.reduce(0.0) { $0 + Double($1) } / Double(between.count)
        #expect(abs(mean - Double(0.25 * step)) < 0.01 * Double(step))
        #expect(read[100_000..<101_000].allSatisfy { $0 == 7 * step }, "a sample on the grid stays exact")
        #expect(read[101_000...].allSatisfy { $0 == 0 }, "silence stays silent")
    }

    @Test("the container comes from the path's extension", arguments: [("a.wav", AudioFileContainer.wav), ("b.aif", .aiff), ("c.AIFF", .aiff), ("d.caf", .caf), ("e.flac", .flac), ("f.oga", .ogg)])
    func containerFromExtension(_ name: String, _ container: AudioFileContainer) throws {
        let directory = try TemporaryDirectory()
        let sampleType: SampleType = container == .ogg ? .float32 : .int16
        let writer = try AudioFileWriter(path: directory.path(name), sampleType: sampleType, sampleRate: 48_000, channelCount: 1)
        #expect(writer.container == container)
        try writer.write(channels: [[Float](repeating: 0, count: 480)])
        try writer.close()
        #expect(try AudioFileReader(path: directory.path(name)).info.container == container)
    }

    @Test("an unknown extension is refused with an error naming it, and no file is created")
    func unknownExtension() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("song.mp3")
        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter(path: path, sampleType: .int16, sampleRate: 48_000, channelCount: 2)
        }
        #expect(error == .unsupportedContainer(path: path, found: "extension \"mp3\""))
        #expect(error?.description.contains("mp3") == true)
        #expect(!directory.exists("song.mp3"))
    }

    @Test("an impossible sample rate or channel count is refused before any file exists",
          arguments: [(0.0, 2), (44_100.5, 2), (48_000, 0), (48_000, 65), (.nan, 1)])
    func invalidFormat(_ sampleRate: Double, _ channelCount: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("bad.wav")
        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter(path: path, sampleType: .int16, sampleRate: sampleRate, channelCount: channelCount)
        }
        guard case .invalidFormat(let errorPath, _) = error else {
            Issue.record("expected invalidFormat, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(!directory.exists("bad.wav"))
    }

    @Test("a format libsndfile refuses only after creating the file leaves no file behind")
    func lateRefusalRemovesFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fast.flac")
        // FLAC's sample rate field stops at 655350 Hz; StreamFormat allows up to 768 kHz.
        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter(path: path, sampleType: .int16, sampleRate: 768_000, channelCount: 1)
        }
        guard case .cannotOpen(let errorPath, _) = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(!directory.exists("fast.flac"))
    }

    @Test("a file in a missing directory cannot be created, and the error names the path")
    func missingDirectory() {
        let path = "/nonexistent-trellis-dir/out.wav"
        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter(path: path, sampleType: .int16, sampleRate: 48_000, channelCount: 1)
        }
        guard case .cannotOpen(let errorPath, _) = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
    }

    @Test("closing twice is harmless, and writing after close throws closed")
    func closeIsIdempotent() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("closed.wav")
        let writer = try AudioFileWriter(path: path, sampleType: .int16, sampleRate: 48_000, channelCount: 1)
        try writer.write(channels: [[0.5, 0.25]])
        try writer.close()
        try writer.close()
        #expect(throws: AudioFileError.closed(path: path)) { try writer.write(channels: [[0.5]]) }
        #expect(try AudioFileReader(path: path).readAll() == [[0.5, 0.25]])
    }

    @Test("a writer released without close still leaves a complete file")
    func deinitCloses() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("dropped.flac")
        do {
            let writer = try AudioFileWriter(path: path, sampleType: .int24, sampleRate: 48_000, channelCount: 1)
            try writer.write(channels: [[0.5, -0.5, 0.125]])
        }
        #expect(try AudioFileReader(path: path).readAll() == [[0.5, -0.5, 0.125]])
    }

    @Test("channels of different lengths or the wrong count are refused")
    func mismatchedChannels() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mismatch.wav")
        let writer = try AudioFileWriter(path: path, sampleType: .int16, sampleRate: 48_000, channelCount: 2)
        #expect(throws: AudioFileError.channelCountMismatch(path: path, fileChannels: 2, bufferChannels: 1)) {
            try writer.write(channels: [[0.5]])
        }
        #expect(throws: AudioFileError.self) { try writer.write(channels: [[0.5, 0.5], [0.5]]) }
        #expect(writer.framesWritten == 0)
    }
}
