import Foundation
import Testing
import TrellisAudioFile
import TrellisGraph
import TrellisOffline
import TrellisSession

@Suite("A session recorder's sample type and dither")
struct RecorderSettingsTests {
    /// A tone that is rarely on the 24-bit grid, recorded as float and as `flac`'s settings.
    private func session(in folder: String, flac: String) -> String {
        """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        nodes:
          tone: { unit: tone, channels: 1, parameters: { freq: 997, amp: 0.4 } }
          out: { unit: output, channels: 1 }
        connections: [tone -> out]
        recorders:
          exact: { source: tone.0, file: \(folder)/exact.wav }
          packed: { source: tone.0, file: \(folder)/packed.flac, \(flac) }
        """
    }

    private func record(_ text: String, in folder: String) throws {
        let path = folder + "/s.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let session = try SessionLoader.load(path: path, registry: testRegistry())
        let recorders = try session.startTransport(atSampleTime: 0)
        try OfflineRenderer(graph: session.graph).render(frameCount: 48_000, to: folder + "/out.wav")
        for recorder in recorders { _ = try recorder.stop() }
    }

    @Test("FLAC at int24 without dither is bit-exact to the 24-bit rounding of what was recorded")
    func undithered() throws {
        let folder = try temporaryFolder()
        try record(session(in: folder, flac: "sample-type: int24, dither: false"), in: folder)
        let exact = try AudioFileReader(path: folder + "/exact.wav").readAll()[0]
        let packed = try AudioFileReader(path: folder + "/packed.flac").readAll()[0]
        #expect(packed.count == exact.count && exact.count == 48_000)
        let rounded = exact.map { Float((Double($0) * 8_388_608).rounded(.toNearestOrEven) / 8_388_608) }
        #expect(packed == rounded)
        #expect(packed != exact, "the tone is off the grid, so rounding shows")
    }

    @Test("with dither (the default) int16 stays within 1.5 LSB and is unbiased")
    func dithered() throws {
        let folder = try temporaryFolder()
        try record(session(in: folder, flac: "sample-type: int16"), in: folder)
        let exact = try AudioFileReader(path: folder + "/exact.wav").readAll()[0]
        let packed = try AudioFileReader(path: folder + "/packed.flac").readAll()[0]
        let lsb = 1.0 / 32_768
        let errors = zip(exact, packed).map { Double($1) - Double($0) }
        #expect(errors.allSatisfy { abs($0) <= 1.5 * lsb })
        #expect(abs(errors.reduce(0, +) / Double(errors.count)) < 0.02 * lsb)
    }

    @Test("a sample type the container cannot hold is refused at the recorder's line")
    func refused() throws {
        let folder = try temporaryFolder()
        let path = folder + "/s.yaml"
        try session(in: folder, flac: "sample-type: float32").write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try SessionLoader.load(path: path, registry: testRegistry())
        } throws: { error in
            "\(error)".contains("s.yaml:9:") && "\(error)".contains("FLAC cannot hold float32 samples; it holds int16, int24")
        }
    }

    @Test("a recorder's quality applies to Ogg Vorbis and is refused at its line for other formats")
    func qualityOnlyForVorbis() throws {
        let folder = try temporaryFolder()
        let path = folder + "/s.yaml"
        try session(in: folder, flac: "quality: 0.4").write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try SessionLoader.load(path: path, registry: testRegistry())
        } throws: { error in
            "\(error)".contains("s.yaml:9:") && "\(error)".contains("quality applies to Ogg Vorbis, not flac")
        }
        let ogg = session(in: folder, flac: "quality: 0.4").replacingOccurrences(of: "packed.flac", with: "packed.ogg")
        try ogg.write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try SessionLoader.load(path: path, registry: testRegistry())
        #expect(loaded.recorders.first { $0.name == "packed" }?.settings.quality == 0.4)
    }

    @Test("save writes a recorder's sample type and dither back")
    func roundTrip() throws {
        let folder = try temporaryFolder()
        let document = try SessionParser.parse(session(in: folder, flac: "sample-type: int16, dither: false"), file: "s.yaml")
        let again = try SessionParser.parse(SessionWriter.text(document), file: "again.yaml")
        let recorder = try #require(again.recorders.first { $0.name == "packed" })
        #expect(recorder.sampleType == "int16" && recorder.dither == false)
    }

    @Test("sample-rate and channels make the recorder convert: 48 kHz mono becomes a 44.1 kHz stereo file holding the tone on both sides")
    func rateAndChannels() throws {
        let folder = try temporaryFolder()
        try record(session(in: folder, flac: "sample-rate: 44100, channels: 2"), in: folder)
        let file = try AudioFileReader(path: folder + "/packed.flac")
        #expect(file.info.sampleRate == 44_100 && file.info.channelCount == 2)
        #expect(abs(file.info.frameCount - 44_100) <= 64, "\(file.info.frameCount) frames for one second")
        let channels = try file.readAll()
        let apart = zip(channels[0], channels[1]).map { abs($0 - $1) }.max() ?? 1
        #expect(apart <= 2.0 / 8_388_608, "both sides the same tone, each dithered to 24 bits on its own: \(apart) apart")
        // The 997 Hz tone at its level, in the middle of the file (Goertzel).
        let middle = Array(channels[0][11_025..<33_075])
        let w = 2 * Double.pi * 997 / 44_100
        var re = 0.0, im = 0.0
        for (n, sample) in middle.enumerated() { re += Double(sample) * cos(w * Double(n)); im -= Double(sample) * sin(w * Double(n)) }
        let amplitude = 2 * (re * re + im * im).squareRoot() / Double(middle.count)
        #expect(abs(amplitude - 0.4) < 0.01, "amplitude \(amplitude)")
        let again = try SessionParser.parse(SessionWriter.text(SessionParser.parse(session(in: folder, flac: "sample-rate: 44100, channels: 2"), file: "s.yaml")), file: "again.yaml")
        let recorder = try #require(again.recorders.first { $0.name == "packed" })
        #expect(recorder.sampleRate == 44_100 && recorder.channels == 2, "save writes them back")
    }
}
