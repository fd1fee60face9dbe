import Foundation
import Testing
import TrellisCore
import TrellisTestSupport
@testable import TrellisSession

/// SplitMix64: a small, fixed-seed generator so every run feeds the same cases.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One random edit of the kinds that break YAML and sessions in practice.
func mutate(_ text: String, _ random: inout SeededGenerator) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let pick = { (random: inout SeededGenerator) in Int.random(in: 0..<max(1, lines.count), using: &random) }
    switch Int.random(in: 0..<7, using: &random) {
    case 0:
        lines.remove(at: pick(&random))
    case 1:
        let line = pick(&random)
        lines.insert(lines[line], at: line)
    case 2:
        lines.swapAt(pick(&random), pick(&random))
    case 3, 4:
        var scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { return text }
        let at = Int.random(in: 0..<scalars.count, using: &random)
        let inserts: [String] = [":", "[", "{", "&", "*", "!", "%", "-", "0", "9", " ", "\t", "#", "'", "\"", "|", ">", ".", "x"]
        let insert = inserts.randomElement(using: &random)!.unicodeScalars
        if Bool.random(using: &random) { scalars.replaceSubrange(at...at, with: insert) } else { scalars.insert(contentsOf: insert, at: at) }
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    case 5:
        let cut = Int.random(in: 0...text.utf8.count, using: &random)
        return String(decoding: text.utf8.prefix(cut), as: UTF8.self)
    default:
        let line = pick(&random)
        let indent = Bool.random(using: &random) ? "  " : ""
        lines[line] = Bool.random(using: &random) ? indent + lines[line] : String(lines[line].drop { $0 == " " })
    }
    return lines.joined(separator: "\n")
}

@Suite("Fuzzing the loader")
struct FuzzTests {
    @Test("1,200 mutated sessions each load or fail with a positioned error, none slowly")
    func mutatedSessions() throws {
        let folder = try temporaryFolder()
        try copySupportFiles(from: sessionsFolder + "/x.yaml", to: folder + "/x.yaml")
        var corpus = try loadableExamples().map { try String(contentsOfFile: $0, encoding: .utf8) }
        corpus += [toneSession, PlaceholderTests.text]
        corpus += try ["live-mix.yaml", "file-render.yaml"].map { try String(contentsOfFile: sessionsFolder + "/" + $0, encoding: .utf8) }
        var random = SeededGenerator(state: 20_261_122)
        var loaded = 0, rejected = 0
        var slowest = 0.0
        for index in 0..<1200 {
            var text = corpus[index % corpus.count]
            for _ in 0..<Int.random(in: 1...3, using: &random) { text = mutate(text, &random) }
            let lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
            let start = Date()
            do {
                _ = try SessionLoader.load(text: text, file: "case\(index).yaml", directory: folder, registry: testRegistry())
                loaded += 1
            } catch {
                rejected += 1
                #expect(error.location.file == "case\(index).yaml" || error.location.file.hasPrefix(folder), "case \(index)")
                #expect(error.location.line >= 1 && error.location.line <= lineCount + 1 && error.location.column >= 1, "case \(index): \(error)")
                #expect(!error.message.isEmpty)
            }
            let elapsed = Date().timeIntervalSince(start)
            slowest = max(slowest, elapsed)
            #expect(elapsed < 2, "case \(index) took \(elapsed) s")
        }
        #expect(loaded + rejected == 1200)
        #expect(loaded > 50 && rejected > 300, "loaded \(loaded), rejected \(rejected)")
        print("fuzz: \(loaded) loaded, \(rejected) rejected, slowest \(Int(slowest * 1000)) ms")
    }
}

@Suite("Fuzzing trellis validate in its own processes")
struct ProcessFuzzTests {
    /// Mutants per process: one process's crash fails its batch, and names it.
    static let batch = 200

    @Test("2,400 mutants of the Sessions/ files: no crash, no hang, none past 500 MB of address space")
    func validateSurvivesMutants() throws {
        let folder = try temporaryFolder()
        try copySupportFiles(from: sessionsFolder + "/x.yaml", to: folder + "/x.yaml")
        let corpus = try exampleFiles().map { try String(contentsOfFile: $0, encoding: .utf8) }
        var random = SeededGenerator(state: 20_261_125)
        var files: [String] = []
        for index in 0..<2_400 {
            var text = corpus[index % corpus.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) { text = mutate(text, &random) }
            let path = folder + "/mutant\(index).yaml"
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            files.append(path)
        }
        var loaded: Set<String> = [], reported: Set<String> = []
        for start in stride(from: 0, to: files.count, by: Self.batch) {
            let chunk = Array(files[start..<min(files.count, start + Self.batch)])
            // 500 MB of address space and a minute of CPU for the batch: past either, the
            // process dies of a signal, which fails the test as a crash or hang would.
            let run = try runCapped(builtExecutable("trellis"), ["validate"] + chunk, addressSpace: 500_000_000, cpuSeconds: 60, deadline: 120)
            let (stdout, stderr) = (run.stdout, run.stderr)
            #expect(run.exited && [0, 1].contains(run.status),
                    "mutants \(start)..<\(start + chunk.count): ended by signal \(run.status): \(stderr.suffix(600))")
            for line in stdout.split(separator: "\n") { if let end = line.range(of: ".yaml: ok (") { loaded.insert(String(line[..<end.lowerBound])) } }
            for line in stderr.split(separator: "\n") { if let end = line.range(of: ".yaml:") { reported.insert(String(line[..<end.lowerBound])) } }
        }
        // Every mutant either loaded or was answered with a positioned message.
        let unanswered = files.map { String($0.dropLast(5)) }.filter { !loaded.contains($0) && !reported.contains($0) }
        #expect(unanswered.isEmpty, "\(unanswered.prefix(3))")
        print("process fuzz: \(loaded.count) loaded, \(files.count - loaded.count) rejected of \(files.count)")
        #expect(loaded.count > 100 && files.count - loaded.count > 500)
    }
}
