import Testing
import TrellisAudioFile
import TrellisCore

@Suite("File info")
struct InfoTests {
    @Test("a written file reports its container, sample type, rate, channels, frames and duration",
          arguments: LosslessCase.all)
    func infoOfWrittenFile(_ testCase: LosslessCase) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("info.\(testCase.fileExtension)")
        let frameCount = 12_345
        let channels = (0..<3).map { _ in [Float](repeating: 0.25, count: frameCount) }
        try writeFile(path, sampleType: testCase.sampleType, sampleRate: 44_100, channels: channels)

        let info = try AudioFileReader(path: path).info
        #expect(info.container == testCase.container)
        #expect(info.encoding == .pcm(testCase.sampleType))
        #expect(info.sampleType == testCase.sampleType)
        #expect(info.sampleRate == 44_100)
        #expect(info.channelCount == 3)
        #expect(info.frameCount == frameCount)
        #expect(info.duration == 12_345.0 / 44_100.0)
    }

    @Test("an Ogg file reports Vorbis, lossy, decoding to float32")
    func oggInfo() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("info.ogg")
        try writeFile(path, sampleType: .float32, sampleRate: 44_100, channels: [sine(frequency: 440, amplitude: 0.5, sampleRate: 44_100, frameCount: 44_100)])
        let info = try AudioFileReader(path: path).info
        #expect(info.container == .ogg)
        #expect(info.encoding == .vorbis)
        #expect(info.encoding.isLossy)
        #expect(info.sampleType == .float32)
        #expect(info.description.contains("lossy"))
    }

    @Test("the description shows every field")
    func descriptionShowsFields() {
        let info = AudioFileInfo(container: .flac, encoding: .pcm(.int24), sampleRate: 48_000, channelCount: 2, frameCount: 72_000)
        for field in ["FLAC", "int24", "48000 Hz", "2 ch", "72000 frames", "1.500 s"] {
            #expect(info.description.contains(field), "\(field) in \(info)")
        }
    }
}
