import Foundation
import Testing
import TrellisCore
import TrellisTestSupport
@testable import TrellisSession

/// Values that break parsers of numbers, times and names in practice.
private let nastyNumbers = [
    "0", "-0", "1", "-1", "0.5", "1e308", "-1e308", "1e-320", "nan", "inf", "-inf", ".nan", ".inf",
    "9223372036854775807", "-9223372036854775808", "18446744073709551616", "4294967296", "2147483648",
    "99999999999999999999999999", "0x7fffffff", "1_000", "", "~", "[]", "{}", "\"12\"", "12abc",
]
private let nastyPositions = [
    "0", "1s", "0.5s", "-1s", "1e308s", "nans", "infs", "1|1|0", "0|0|0", "-1|1|0", "999999999|1|0", "1|999999|0",
    "1|1|999999999", "9223372036854775807|1|0", "00:00:01:00", "00:00:00:99", "99:99:99:99", "-00:00:01:00",
    "24:00:00:00", "9223372036854775807", "-9223372036854775808", "48000", "1.5", "1||0", "|||", "1|1", "s",
]
private let nastyNames = [
    "Soft", "soft", "SOFT", "", " ", "../../../etc/passwd", "/etc/passwd", "a/b", "..", ".", "Soft\u{0}x", "ü", "🎛️",
    String(repeating: "p", count: 5_000), String(repeating: "é", count: 3_000), "\"quoted\"", "[list]", "{map}", "*alias", "&anchor",
    "p0", "p1", "p2", "p3", "p4",
]

/// One session exercising the fields whose values reach the transport, automation,
/// MIDI mapping, presets and a MIDI file, with each field drawn at random from values
/// that break parsers (one time in eight; else left sound, so many load and render).
private func fieldMutant(_ random: inout SeededGenerator) -> String {
    func pick(_ values: [String], sound: String) -> String {
        Int.random(in: 0..<8, using: &random) > 0 ? sound : values.randomElement(using: &random)!
    }
    let tempo = pick(nastyNumbers, sound: "120")
    let meter = pick(["4/4", "0/4", "4/0", "99999/4", "-1/4", "4/3", "1/1", "64/64", "65/4", "x/y", "4", "/"], sound: "3/4")
    let start = pick(nastyPositions, sound: "2|1|0")
    let smpte = pick(["24", "25", "29.97", "30", "0", "-1", "1e308", "nan", "23.976", "60"], sound: "25")
    var lane: [String] = []
    for _ in 0..<Int.random(in: 0...4, using: &random) {
        lane.append(pick(nastyPositions, sound: "1s") + " " + pick(nastyNumbers, sound: "-6"))
    }
    let step = Bool.random(using: &random)
    let automation = step ? "{ points: [\(lane.joined(separator: ", "))], step: true }" : "[\(lane.joined(separator: ", "))]"
    let preset = Int.random(in: 0..<4, using: &random) == 0 ? "    preset: \(YAMLText.scalar(nastyNames.randomElement(using: &random)!))\n" : ""
    let mapping = "  - { cc: \(pick(nastyNumbers, sound: "7")), channel: \(pick(nastyNumbers, sound: "1")), from: keys, "
        + "to: \(pick(["trim.gain", "trim.bypass", "trim", "trim.", ".gain", "nowhere.gain", "trim.nothing", "song.gain"], sound: "trim.gain")), "
        + "min: \(pick(nastyNumbers, sound: "-40")), max: \(pick(nastyNumbers, sound: "0")) }"
    let song = pick((1..<8).map { "song\($0).mid" }, sound: "song0.mid")
    return """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        transport: { tempo: \(tempo), meter: \(meter), start: \(start), smpte: \(smpte) }
        jack: { midi-inputs: [keys] }
        nodes:
          song: { unit: midi-player, file: \(song) }
          tone1: { unit: tone, channels: 1 }
          trim:
            unit: gain
            channels: 1
        \(preset)    automation:
              gain: \(automation)
          out: { unit: output, channels: 1 }
        connections: [tone1 -> trim -> out]
        midi-map:
        \(mapping)

        """
}

/// A MIDI file with random damage: bytes changed, inserted or cut, lengths and
/// variable-length times rewritten.
private func midiMutant(_ random: inout SeededGenerator) -> [UInt8] {
    var bytes = TestMIDIFile.twoTrackSong
    for _ in 0..<Int.random(in: 1...6, using: &random) {
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<5, using: &random) {
        case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
        case 1: bytes[at] = [0x00, 0x7F, 0x80, 0xFF, 0xF0, 0xF7].randomElement(using: &random)!
        case 2: bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0x7F], at: at)
        case 3: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &random)))
        default: bytes = Array(bytes.prefix(at))
        }
        if bytes.isEmpty { bytes = [0x4D] }
    }
    return bytes
}

@Suite("Fuzzing the values that reach the transport, automation, MIDI maps, presets and MIDI files")
struct FieldFuzzTests {
    @Test("2,000 field mutants validate in their own processes: no crash, no hang, none past 500 MB of address space; those that load render")
    func fieldMutantsAreAnswered() throws {
        let folder = try temporaryFolder()
        var random = SeededGenerator(state: 20_261_128)
        // Eight damaged MIDI files, and presets for the gain, some damaged, as a user's
        // preset folder holds them.
        for index in 0..<8 {
            try Data(index == 0 ? TestMIDIFile.twoTrackSong : midiMutant(&random)).write(to: URL(fileURLWithPath: folder + "/song\(index).mid"))
        }
        let presets = folder + "/config/trellis/presets/" + "aufx:gain:trel".replacingOccurrences(of: ":", with: "-")
        try FileManager.default.createDirectory(atPath: presets, withIntermediateDirectories: true)
        let sound = "preset: Soft\nunit: aufx:gain:trel\nparameters:\n  gain: -6\n"
        try sound.write(toFile: presets + "/soft.yaml", atomically: true, encoding: .utf8)
        for index in 0..<5 {
            var text = sound.replacingOccurrences(of: "Soft", with: "p\(index)")
            for _ in 0..<Int.random(in: 1...3, using: &random) { text = mutate(text, &random) }
            try text.write(toFile: presets + "/p\(index).yaml", atomically: true, encoding: .utf8)
        }
        var files: [String] = []
        for index in 0..<2_000 {
            let path = folder + "/field\(index).yaml"
            try fieldMutant(&random).write(toFile: path, atomically: false, encoding: .utf8)
            files.append(path)
        }
        let environment = ["XDG_CONFIG_HOME": folder + "/config"]
        var loaded: [String] = [], reported: Set<String> = []
        for start in stride(from: 0, to: files.count, by: 200) {
            let chunk = Array(files[start..<min(files.count, start + 200)])
            let run = try limitedTrellis(["validate"] + chunk, environment: environment)
            #expect(run.exited && [0, 1].contains(run.status), "mutants \(start)..<\(start + chunk.count): ended by signal \(run.status): \(run.stderr.suffix(600))")
            for line in run.stdout.split(separator: "\n") { if let end = line.range(of: ".yaml: ok (") { loaded.append(String(line[..<end.lowerBound]) + ".yaml") } }
            for line in run.stderr.split(separator: "\n") { if let end = line.range(of: ".yaml:") { reported.insert(String(line[..<end.lowerBound]) + ".yaml") } }
        }
        let unanswered = files.filter { !loaded.contains($0) && !reported.contains($0) }
        #expect(unanswered.isEmpty, "\(unanswered.prefix(3))")
        #expect(loaded.count > 100 && files.count - loaded.count > 500, "\(loaded.count) of \(files.count) loaded")
        // What loads also plays: every loaded mutant renders a second with its transport rolling.
        for path in loaded {
            let run = try limitedTrellis(["render", path, "-o", folder + "/out.wav", "--duration", "1"], environment: environment)
            #expect(run.exited && run.status == 0, "\(path): \(run.stderr.suffix(600))")
        }
        print("field fuzz: \(loaded.count) loaded, \(files.count - loaded.count) rejected of \(files.count)")
    }

    /// `trellis` under 500 MB of address space and a minute of CPU, killed after two.
    private func limitedTrellis(_ arguments: [String], environment: [String: String]) throws -> CappedRun {
        try runCapped(builtExecutable("trellis"), arguments, addressSpace: 500_000_000, cpuSeconds: 60, deadline: 120, environment: environment)
    }
}
