import Foundation
import Testing
import TrellisTestSupport

/// A MIDI file played into mda EPiano, whose notes are silent again well before the next.
@Suite("MIDI files rendered through an instrument")
struct MIDIFileRenderTests {
    static let piano = "lv2:http://drobilla.net/plugins/mda/EPiano"

    static func songFile() throws -> String {
        let path = temporaryPath("song.mid")
        try Data(TestMIDIFile.twoTrackSong).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("trellis chain song.mid ! an instrument ! out.wav starts every note on the frame the tempo map puts it on")
    func chainRendersSong() throws {
        let song = try Self.songFile()
        let output = song.replacingOccurrences(of: ".mid", with: ".wav")
        let result = try trellis(["chain", song, "!", Self.piano, "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try firstChannel(ofFile: output)
        #expect(soundOnsets(samples) == TestMIDIFile.twoTrackOnsets)
        // The song (3.25 s) and two seconds for the last note to ring out.
        #expect(samples.count == 252_000)
    }

    @Test("a session's midi-player renders the same samples as the chain, and starts where the transport does")
    func sessionRendersSong() throws {
        let song = try Self.songFile()
        let folder = (song as NSString).deletingLastPathComponent
        let session = folder + "/song.yaml"
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              song: { unit: midi-player, file: song.mid }
              piano: { lv2: http://drobilla.net/plugins/mda/EPiano }
              out: { unit: output, channels: 2 }
            connections: [song -> piano -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let rendered = folder + "/session.wav"
        let result = try trellis(["render", session, "-o", rendered])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try firstChannel(ofFile: rendered)
        #expect(soundOnsets(samples) == TestMIDIFile.twoTrackOnsets)
        let chained = folder + "/chain.wav"
        _ = try trellis(["chain", song, "!", Self.piano, "!", chained])
        #expect(samples == (try firstChannel(ofFile: chained)))
        // Started half a second into the song, every note is 24,000 frames earlier
        // and the first is gone.
        let later = folder + "/later.wav"
        #expect(try trellis(["render", session, "-o", later, "--start", "0.5s", "--duration", "3"]).status == 0)
        #expect(soundOnsets(try firstChannel(ofFile: later)) == TestMIDIFile.twoTrackOnsets.dropFirst().map { $0 - 24_000 })
    }

    @Test("a file that is not a MIDI file is refused where the session names it")
    func badFile() throws {
        let folder = (try Self.songFile() as NSString).deletingLastPathComponent
        try "not a song".write(toFile: folder + "/bad.mid", atomically: true, encoding: .utf8)
        let session = folder + "/bad.yaml"
        try """
            version: 1
            nodes:
              song: { unit: midi-player, file: bad.mid }
              piano: { lv2: http://drobilla.net/plugins/mda/EPiano }
              out: output
            connections: [song -> piano -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let result = try trellis(["validate", session])
        #expect(result.status != 0)
        #expect(result.stderr.contains("bad.yaml:3:") && result.stderr.contains("not a Standard MIDI File"), "\(result.stderr)")
    }
}
