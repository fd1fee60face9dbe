import CSndfile
import Testing
import TrellisAudioFile
import TrellisCore

@Suite("Containers and sample types that cannot go together")
struct FormatMismatchTests {
    @Test("an impossible pair is refused with an error naming both, and no file is created", arguments: ImpossibleCase.all)
    func impossiblePairIsRefused(_ testCase: ImpossibleCase) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("refused.\(testCase.container.rawValue)")
        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter(path: path, sampleType: testCase.sampleType, sampleRate: 48_000, channelCount: 2)
        }
        #expect(error == .unsupportedSampleType(path: path, container: testCase.container, sampleType: testCase.sampleType))
        let message = error?.description ?? ""
        #expect(message.contains(testCase.container.description))
        #expect(message.contains("\(testCase.sampleType)"))
        #expect(message.contains(path))
        #expect(!directory.exists("refused.\(testCase.container.rawValue)"))
    }

    @Test("the sample types each lossless container claims are exactly those libsndfile accepts",
          arguments: AudioFileContainer.allCases.filter { $0 != .ogg })
    func supportedTypesMatchLibsndfile(_ container: AudioFileContainer) {
        let subtypes: [(SampleType, Int)] = [(.float32, SF_FORMAT_FLOAT), (.int16, SF_FORMAT_PCM_16), (.int24, SF_FORMAT_PCM_24), (.int32, SF_FORMAT_PCM_32)]
        for (sampleType, subtype) in subtypes {
            var info = SF_INFO()
            info.samplerate = 48_000
            info.channels = 2
            info.format = container.sndfileMajorFormat | Int32(subtype)
            #expect((sf_format_check(&info) == SF_TRUE) == container.canHold(sampleType), "\(container) \(sampleType)")
        }
    }

    @Test("Ogg holds Vorbis, which libsndfile accepts, and only as float32")
    func oggIsVorbisFloat() {
        var info = SF_INFO()
        info.samplerate = 48_000
        info.channels = 2
        info.format = AudioFileContainer.ogg.sndfileFormat(for: .float32) ?? 0
        #expect(sf_format_check(&info) == SF_TRUE)
        #expect(info.format & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_VORBIS))
        #expect(AudioFileContainer.ogg.supportedSampleTypes == [.float32])
    }
}
