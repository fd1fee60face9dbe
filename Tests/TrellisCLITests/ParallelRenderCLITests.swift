import Foundation
import Testing

@Suite("Parallel rendering from the command line", .serialized)
struct ParallelRenderCLITests {
    /// The repository's Sessions folder, copied, so renders and recordings stay out of it.
    private func sessionsCopy() throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sessions").standardized.path
        let copy = temporaryPath("Sessions")
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        return copy
    }

    /// The JACK audio input ports a session declares (`inputs: [a, b]` under `jack:`).
    private func audioInputs(_ text: String) -> [String] {
        guard let range = text.range(of: #"(?<![-\w])inputs: \[([^\]]*)\]"#, options: .regularExpression) else { return [] }
        let list = text[range].drop { $0 != "[" }.dropFirst().dropLast()
        return list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test("every session in Sessions/ renders on 2 threads, schedule always, bit for bit as on one")
    func everySessionIsBitIdentical() throws {
        let folder = try sessionsCopy()
        let noise = folder + "/noise.wav"
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "float", noise, "synth", "3", "whitenoise", "vol", "0.3"]) == 0)
        let sessions = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(sessions.count >= 10)
        var silent: [String] = []
        for name in sessions {
            let path = folder + "/" + name
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let inputs = audioInputs(text).flatMap { ["--input", "\($0)=\(noise)"] }
            func render(_ threads: [String], to output: String) throws -> String {
                let result = try trellis(["render", path, "-o", output, "--duration", "2", "--sample-type", "float32"] + inputs + threads)
                #expect(result.status == 0, "\(name): \(result.stderr)")
                return result.stderr
            }
            let one = folder + "/\(name)-1.wav", two = folder + "/\(name)-2.wav"
            _ = try render(["--threads", "1"], to: one)
            let report = try render(["--threads", "2", "--schedule", "always"], to: two)
            #expect(report.contains("schedule: 2 threads, parallel"), "\(name): \(report)")
            let same = FileManager.default.contentsEqual(atPath: one, andPath: two)
            #expect(same, "\(name): the 2-thread render differs from the 1-thread render")
            if try !floats(one).contains(where: { $0 != 0 }) { silent.append(name) }
        }
        // Two silent files prove nothing: only MIDI-driven sessions, with no MIDI coming in, may be silent.
        #expect(silent.allSatisfy { $0.hasPrefix("midi-") }, "silent renders: \(silent)")
    }
}
