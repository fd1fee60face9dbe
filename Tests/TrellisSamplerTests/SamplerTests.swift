import CAllocationCounter
import Foundation
import Testing
import TrellisAudioFile
import TrellisCore
@testable import TrellisSampler
import TrellisTestSupport

/// Plays a sampler outside a graph: each cycle's MIDI at its start, stereo out.
final class SamplerRig {
    let unit: Sampler
    let outputs = AudioBufferList(channelCounts: [2], frameCapacity: 512)

    init(_ unit: Sampler) throws {
        self.unit = unit
        try unit.setSampleRate(48_000)
        try unit.setMaximumFramesPerSlice(512)
        try unit.initialize()
    }

    /// `frames` frames (a multiple of 512); `messages` at their frames (multiples of 512).
    func play(frames: Int, messages: [(frame: Int, bytes: [UInt8])] = []) -> [[Float]] {
        var result: [[Float]] = [[], []]
        for start in stride(from: 0, to: frames, by: 512) {
            let events = messages.filter { $0.frame == start }.map {
                RenderEvent.midi(status: $0.bytes[0], data1: $0.bytes.count > 1 ? $0.bytes[1] : 0,
                                 data2: $0.bytes.count > 2 ? $0.bytes[2] : 0, length: UInt8($0.bytes.count), bus: 0, offset: 0)
            }
            events.withUnsafeBufferPointer { list in
                let context = RenderContext(frameCount: 512, timeStamp: AudioTimeStamp(sampleTime: Int64(start)),
                                            inputs: BusBuffers(buses: nil, count: 0), outputs: outputs.buses,
                                            events: RenderEventList(base: list.baseAddress, count: list.count))
                _ = unit.render(context)
            }
            for channel in 0..<2 { result[channel] += outputs.samples(bus: 0, channel: channel, frameCount: 512) }
        }
        return result
    }
}

func scratchFolder(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "trellis-sampler-\(getpid())-\(name)"
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}


func rmsLevel(_ samples: ArraySlice<Float>) -> Double {
    10 * log10(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count))
}

@Suite("Sampler")
struct SamplerTests {
    static let generalMIDI = Sampler.defaultSoundFont

    @Test("General MIDI piano note 69 sounds at 440 Hz ±0.5 Hz")
    func pianoA440() throws {
        let rig = try SamplerRig(Sampler())
        let output = rig.play(frames: 48_128, messages: [(0, [0x90, 69, 100])])
        let frequency = peakHertz(output[0][4800..<28_800], low: 430, high: 450)
        #expect(abs(frequency - 440) <= 0.5, "\(frequency) Hz")
    }

    /// Renders `song` through the fluidsynth command with the same bank, gain and no effects.
    static func fluidsynthRender(_ song: [UInt8], name: String) throws -> [Float] {
        let folder = scratchFolder(name)
        let midi = folder + "/song.mid", wav = folder + "/fluid.wav"
        try Data(song).write(to: URL(fileURLWithPath: midi))
        let run = try runCapped("/usr/bin/fluidsynth", ["-ni", "-q", "-g", "1", "-r", "48000", "-R", "0", "-C", "0", "-O", "float",
                                                        "-F", wav, generalMIDI, midi], addressSpace: 4 << 30, deadline: 60)
        #expect(run.status == 0, "\(run.stderr)")
        return try AudioFileReader(path: wav).readAll()[0]
    }

    @Test("velocity sets the level as the fluidsynth command plays it (the SoundFont's own velocity curve)")
    func velocityLevel() throws {
        var levels: [Double] = [], references: [Double] = []
        for velocity: UInt8 in [127, 64, 32] {
            let rig = try SamplerRig(Sampler())
            levels.append(rmsLevel(rig.play(frames: 24_064, messages: [(0, [0x90, 60, velocity])])[0][0..<24_000]))
            let song = TestMIDIFile.header(format: 0, tracks: 1, division: 480)
                + TestMIDIFile.track([(0, TestMIDIFile.tempo(500_000)), (0, [0x90, 60, velocity]), (960, [0x80, 60, 0])])
            references.append(rmsLevel(try Self.fluidsynthRender(song, name: "velocity\(velocity)")[0..<24_000]))
        }
        for index in 1..<3 {
            #expect(abs((levels[index] - levels[0]) - (references[index] - references[0])) < 0.2,
                    "ours \(levels[index] - levels[0]) dB, fluidsynth's \(references[index] - references[0]) dB")
        }
        #expect(levels[1] < levels[0] - 3)
    }

    @Test("note-off starts the release: a held organ note falls away after it, not before")
    func noteOffReleases() throws {
        let rig = try SamplerRig(Sampler())
        let output = rig.play(frames: 96_256, messages: [(0, [0xC0, 19]), (0, [0x90, 60, 110]), (48_128, [0x80, 60, 0])])[0]
        let held = rmsLevel(output[24_000..<48_000]), early = rmsLevel(output[4800..<24_000])
        let after = rmsLevel(output[72_000..<96_000])
        #expect(abs(held - early) < 3, "held \(held), early \(early)")
        #expect(after < held - 20, "after \(after), held \(held)")
    }

    @Test("a program change switches the instrument, as setting the program parameter does")
    func programChange() throws {
        let piano = try SamplerRig(Sampler()).play(frames: 24_064, messages: [(0, [0x90, 60, 100])])[0]
        let changed = try SamplerRig(Sampler()).play(frames: 24_064, messages: [(0, [0xC0, 40]), (0, [0x90, 60, 100])])[0]
        let byParameter = Sampler()
        try byParameter.setParameter(named: "program", 40)
        let parameter = try SamplerRig(byParameter).play(frames: 24_064, messages: [(0, [0x90, 60, 100])])[0]
        let difference = zip(piano, changed).map { Double(abs($0 - $1)) }.max()!
        #expect(difference > 0.05)
        #expect(zip(changed, parameter).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test("a missing bank and a damaged SoundFont are refused with their names")
    func badBanks() throws {
        let folder = scratchFolder("bad")
        #expect(throws: AudioUnitError.self) { try Sampler().loadContent(path: folder + "/missing.sf2") }
        do { try Sampler().loadContent(path: folder + "/missing.sf2") } catch { #expect("\(error)".contains("missing.sf2")) }
        // A real SoundFont cut short: its header passes, its body does not.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.generalMIDI)).prefix(200_000)
        try bytes.write(to: URL(fileURLWithPath: folder + "/cut.sf2"))
        do {
            try Sampler().loadContent(path: folder + "/cut.sf2")
            Issue.record("a damaged SoundFont loaded")
        } catch { #expect("\(error)".contains("cut.sf2")) }
        try Data("not a bank".utf8).write(to: URL(fileURLWithPath: folder + "/text.sf2"))
        do {
            try Sampler().loadContent(path: folder + "/text.sf2")
            Issue.record("a text file loaded")
        } catch { #expect("\(error)".contains("text.sf2")) }
    }
}

@Suite("Sampler banks that are not files")
struct SamplerBankKindTests {
    @Test("a FIFO named as a bank is refused at once, never opened")
    func fifoRefused() throws {
        let path = scratchFolder("fifo") + "/bank.sf2"
        #expect(mkfifo(path, 0o600) == 0)
        do {
            try Sampler().loadContent(path: path)
            Issue.record("a FIFO loaded")
        } catch { #expect("\(error)".contains("neither a folder nor a regular file")) }
    }
}
