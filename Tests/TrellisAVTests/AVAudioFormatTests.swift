import Testing
import TrellisAV

@Suite("AVAudioFormat, AVAudioPCMBuffer, AVAudioTime")
struct AVAudioFormatTests {
    @Test("the standard format is 32-bit float deinterleaved, and its stream description says so")
    func standardFormat() {
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        #expect(format.isStandard)
        #expect(format.commonFormat == .pcmFormatFloat32)
        let asbd = format.streamDescription.pointee
        #expect(asbd.mFormatID == kAudioFormatLinearPCM)
        #expect(asbd.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0)
        #expect(asbd.mFormatFlags & kAudioFormatFlagIsFloat != 0)
        #expect(asbd.mBytesPerFrame == 4)
        #expect(asbd.mBitsPerChannel == 32)
    }

    @Test("interleaved 16-bit stereo: 4 bytes a frame, one channel pointer, stride 2")
    func interleavedInt16() {
        let format = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
        #expect(format.streamDescription.pointee.mBytesPerFrame == 4)
        #expect(!format.isStandard)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 16)!
        #expect(buffer.stride == 2)
        #expect(buffer.int16ChannelData != nil && buffer.floatChannelData == nil && buffer.int32ChannelData == nil)
    }

    @Test("settings read back into an equal format")
    func settingsRoundTrip() {
        let format = AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 96_000, channels: 6, interleaved: false)!
        #expect(AVAudioFormat(settings: format.settings) == format)
        #expect(format.settings[AVLinearPCMBitDepthKey] as? Int == 32)
    }

    @Test("rates and widths Trellis cannot run give nil, not a format")
    func invalidFormats() {
        #expect(AVAudioFormat(standardFormatWithSampleRate: 0, channels: 2) == nil)
        #expect(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 0) == nil)
        #expect(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC]) == nil)
    }

    @Test("a buffer starts zeroed, empty, with the capacity asked for")
    func bufferStartsEmpty() {
        let buffer = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, frameCapacity: 512)!
        #expect(buffer.frameLength == 0)
        #expect(buffer.frameCapacity == 512)
        #expect((0..<512).allSatisfy { buffer.floatChannelData![1][$0] == 0 })
    }

    @Test("a sample time extrapolated from an anchor gets the host time its distance in seconds makes")
    func extrapolation() {
        let anchor = AVAudioTime(hostTime: AVAudioTime.hostTime(forSeconds: 10), sampleTime: 48_000, atRate: 48_000)
        let later = AVAudioTime(sampleTime: 96_000, atRate: 48_000).extrapolateTime(fromAnchor: anchor)!
        #expect(later.hostTime == AVAudioTime.hostTime(forSeconds: 11))
        let byHost = AVAudioTime(hostTime: AVAudioTime.hostTime(forSeconds: 10.5)).extrapolateTime(fromAnchor: anchor)!
        #expect(byHost.sampleTime == 72_000)
        #expect(AVAudioTime.seconds(forHostTime: AVAudioTime.hostTime(forSeconds: 2.25)) == 2.25)
    }
}
