import Testing
import TrellisCore
import TrellisMedia
import TrellisTestSupport

@Suite("Standard MIDI Files")
struct StandardMIDIFileTests {
    @Test("a format 1 file's events take their times from the tempo map of its first track")
    func tempoMap() throws {
        let song = try StandardMIDIFile(bytes: TestMIDIFile.twoTrackSong, name: "song.mid")
        #expect(song.format == 1 && song.ticksPerQuarter == 480 && song.trackCount == 1)
        let onsets = song.events.filter { $0.message.status == 0x90 }.map(\.seconds)
        #expect(onsets == [0, 0.5, 1, 2, 3])
        #expect(song.tempoMap.map(\.microsecondsPerQuarter) == [500_000, 1_000_000])
        // The last note ends 120 ticks (an eighth at 60 BPM: 0.25 s) after its start.
        #expect(abs(song.length - 3.25) < 1e-9)
    }

    @Test("running status, program changes and meta and system exclusive events in between read as the format says")
    func runningStatus() throws {
        let track = TestMIDIFile.track([
            (0, [0xC0, 5]),                         // program change: two bytes
            (0, [0x90, 60, 100]), (10, [62, 90]),   // running status: a second note on
            (20, [0xF0, 0x03, 0x7E, 0x01, 0xF7]),   // system exclusive, skipped
            (30, [0xFF, 0x01, 0x02, 0x68, 0x69]),   // a text meta event, skipped
            (40, [0x80, 60, 0]), (50, [62, 0]),
        ])
        let song = try StandardMIDIFile(bytes: TestMIDIFile.header(format: 0, tracks: 1, division: 96) + track, name: "x.mid")
        #expect(song.events.map(\.message.status) == [0xC0, 0x90, 0x90, 0x80, 0x80])
        #expect(song.events.map(\.message.length) == [2, 3, 3, 3, 3])
        #expect(song.events[2].message.data1 == 62 && song.events[2].message.data2 == 90)
        // 96 ticks a quarter at 120 BPM: a tick is 1/192 s.
        #expect(abs(song.events[4].seconds - 50.0 / 192) < 1e-12)
    }

    @Test("a file that breaks the format is refused, naming the track and byte")
    func malformed() {
        let song = TestMIDIFile.twoTrackSong
        #expect(throws: StandardMIDIFile.Failure.self) { try StandardMIDIFile(bytes: Array("RIFF....".utf8), name: "a.mid") }
        do {
            _ = try StandardMIDIFile(bytes: Array(song.prefix(song.count - 10)), name: "cut.mid")
            Issue.record("a cut file was read")
        } catch {
            #expect(error.message.hasPrefix("cut.mid: track 2 at byte "), "\(error)")
        }
        let formatTwo = TestMIDIFile.header(format: 2, tracks: 1, division: 96) + TestMIDIFile.track([(0, [0x90, 60, 1])])
        #expect(throws: StandardMIDIFile.Failure.self) { try StandardMIDIFile(bytes: formatTwo, name: "f2.mid") }
        let endlessDelta = TestMIDIFile.header(format: 0, tracks: 1, division: 96)
            + Array("MTrk".utf8) + [0, 0, 0, 8] + [0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x90, 60, 1]
        do {
            _ = try StandardMIDIFile(bytes: endlessDelta, name: "d.mid")
            Issue.record("a five-byte delta was read")
        } catch {
            #expect(error.message.contains("variable-length"), "\(error)")
        }
        let stray = TestMIDIFile.header(format: 0, tracks: 1, division: 96) + TestMIDIFile.track([(0, [60, 100])])
        #expect(throws: StandardMIDIFile.Failure.self) { try StandardMIDIFile(bytes: stray, name: "s.mid") }
    }
}
