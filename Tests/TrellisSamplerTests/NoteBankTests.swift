import Foundation
import Testing
import TrellisAudioFile
import TrellisCore
@testable import TrellisSampler
import TrellisTestSupport

@Suite("Note-named file bank")
struct NoteBankTests {
    /// A folder with C4 as a 261.63 Hz sine and A4 as a 440 Hz one, two seconds each.
    static func bank() throws -> String {
        let folder = scratchFolder("bank-\(UUID().uuidString)")
        for (name, hertz) in [("C4.wav", 261.6255653005986), ("A4-soft.flac", 440.0)] {
            let run = try runCapped("/usr/bin/sox", ["-n", "-r", "44100", "-c", "1", folder + "/" + name, "synth", "2", "sine", "\(hertz)", "vol", "0.5"],
                                    addressSpace: 1 << 30, deadline: 30)
            #expect(run.status == 0, "\(run.stderr)")
        }
        try Data("notes".utf8).write(to: URL(fileURLWithPath: folder + "/readme.txt"))
        return folder
    }

    @Test("file names give notes: C4 is 60, A#2 46, Db-1 1; other names none")
    func noteNames() {
        #expect(NoteName.note(inFileName: "C4.wav") == 60)
        #expect(NoteName.note(inFileName: "A#2-soft.flac") == 46)
        #expect(NoteName.note(inFileName: "/x/y/Db-1.aif") == 1)
        #expect(NoteName.note(inFileName: "a4_loud.wav") == 69)
        #expect(NoteName.note(inFileName: "readme.txt") == nil)
        #expect(NoteName.note(inFileName: "C44.wav") == nil)
        #expect(NoteName.note(inFileName: "G9.wav") == 127)
    }

    @Test("each note plays the file of the nearest root, repitched by the difference", arguments: [
        (69, 440.0), (60, 261.6255653005986), (62, 293.6647679174076), (72, 523.2511306011972), (57, 220.0),
    ])
    func repitching(_ note: Int, _ hertz: Double) throws {
        let sampler = Sampler()
        try sampler.loadContent(path: try Self.bank())
        let output = try SamplerRig(sampler).play(frames: 24_064, messages: [(0, [0x90, UInt8(note), 127])])[0]
        let frequency = peakHertz(output[2400..<21_600], low: hertz - 5, high: hertz + 5)
        #expect(abs(frequency - hertz) <= 0.1, "note \(note): \(frequency) Hz")
    }

    @Test("velocity scales the level by (velocity / 127)²")
    func velocityCurve() throws {
        let sampler = Sampler()
        try sampler.loadContent(path: try Self.bank())
        let rig = try SamplerRig(sampler)
        let loud = rig.play(frames: 12_288, messages: [(0, [0x90, 69, 127])])[0]
        _ = rig.play(frames: 48_128, messages: [(0, [0x80, 69, 0])])
        let soft = rig.play(frames: 12_288, messages: [(0, [0x90, 69, 64])])[0]
        let difference = rmsLevel(soft[1024..<12_000]) - rmsLevel(loud[1024..<12_000])
        #expect(abs(difference - 40 * log10(64.0 / 127)) < 0.01, "\(difference) dB")
    }

    @Test("note-off starts a release to −60 dB in 0.25 s; the sustain pedal holds it until it lifts")
    func releaseAndSustain() throws {
        let sampler = Sampler()
        try sampler.loadContent(path: try Self.bank())
        let rig = try SamplerRig(sampler)
        let released = rig.play(frames: 24_064, messages: [(0, [0x90, 69, 127]), (4096, [0x80, 69, 0])])[0]
        #expect(rmsLevel(released[4096 + 12_000 + 512..<4096 + 12_000 + 1024]) < rmsLevel(released[2048..<4096]) - 55)
        let sustained = rig.play(frames: 56_320, messages: [(0, [0xB0, 64, 127]), (0, [0x90, 60, 127]), (4096, [0x80, 60, 0]), (36_864, [0xB0, 64, 0])])[0]
        #expect(abs(rmsLevel(sustained[30_000..<36_000]) - rmsLevel(sustained[1024..<4096])) < 0.5)
        #expect(rmsLevel(sustained[36_864 + 12_000..<36_864 + 12_500]) < rmsLevel(sustained[1024..<4096]) - 55)
    }

    @Test("a folder with no note-named audio files is refused with its name")
    func emptyFolder() throws {
        let folder = scratchFolder("empty")
        do {
            try Sampler().loadContent(path: folder)
            Issue.record("an empty folder loaded")
        } catch { #expect("\(error)".contains(folder)) }
    }
}
