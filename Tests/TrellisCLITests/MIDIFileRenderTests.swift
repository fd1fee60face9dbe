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

    /// 40 bytes: one note, on and off after two delta times of 0x0FFFFFFF ticks at 384 a
    /// quarter: a song of about 194 hours.
    static let endlessSong: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0x80] + Array("MTrk".utf8) + [0, 0, 0, 18]
        + [0xFF, 0xFF, 0xFF, 0x7F, 0x90, 60, 64, 0xFF, 0xFF, 0xFF, 0x7F, 0x80, 60, 0, 0x00, 0xFF, 0x2F, 0x00]

    /// A session at 8 kHz that plays `song` (its length is the session's) beside a tone.
    static func endlessSession(in folder: String) throws -> String {
        try Data(endlessSong).write(to: URL(fileURLWithPath: folder + "/endless.mid"))
        let session = folder + "/endless.yaml"
        try """
            version: 1
            defaults: { sample-rate: 8000, block-size: 256 }
            nodes:
              song: { unit: midi-player, file: endless.mid }
              piano: { lv2: http://drobilla.net/plugins/mda/EPiano }
              tone1: { unit: tone, channels: 1, parameters: { freq: 440, amp: 0.5 } }
              out: { unit: output, channels: 1 }
            connections: [song -> piano, tone1 -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        return session
    }

    @Test("a 40-byte MIDI file naming a 194-hour song renders for one hour without --duration, and the summary says why it stopped")
    func endlessSongStopsAtTheBound() throws {
        #expect(Self.endlessSong.count == 40)
        let folder = (try Self.songFile() as NSString).deletingLastPathComponent
        let session = try Self.endlessSession(in: folder)
        let output = folder + "/endless.wav"
        let result = try trellis(["render", session, "-o", output, "--sample-type", "int16"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("this render stopped at 1:00:00, the bound on a length taken from the inputs (give --duration for more)"), "\(result.stderr)")
        #expect(try firstChannel(ofFile: output).count == 3600 * 8000)
    }

    @Test("a render that cannot fit in its folder's free space is refused before the first frame, and leaves no file")
    func renderThatCannotFitIsRefused() throws {
        let folder = (try Self.songFile() as NSString).deletingLastPathComponent
        let session = try Self.endlessSession(in: folder)
        let small = folder + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        #expect(try runTool("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", small]) == 0, "mounting a small tmpfs needs root")
        defer { _ = try? runTool("umount", ["-l", small]) }
        let result = try trellis(["render", session, "-o", small + "/endless.wav", "--duration", "600"])
        #expect(result.status != 0 && result.stderr.contains("would take about 19 MB and its folder has 8 MB free"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: small + "/endless.wav"))
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

    @Test("a session that only sends MIDI has no audio to render: an error at its nodes:, and no file written")
    func midiOnlySessionIsRefused() throws {
        let folder = (try Self.songFile() as NSString).deletingLastPathComponent
        let session = folder + "/thru.yaml"
        try """
            version: 1
            jack:
              midi-outputs: [thru]
            nodes:
              song: { unit: midi-player, file: song.mid }
            connections: [song -> thru]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        #expect(try trellis(["validate", session]).status == 0, "it runs live")
        let result = try trellis(["render", session, "-o", folder + "/thru.wav"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("thru.yaml:4:1: render: the session has no output node"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/thru.wav"))
    }
}
