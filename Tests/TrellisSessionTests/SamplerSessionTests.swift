import Foundation
import Testing
import TrellisCore
@testable import TrellisSession
import TrellisSampler

@Suite("Sampler in sessions")
struct SamplerSessionTests {
    static let text = """
        version: 1
        jack:
          midi-inputs: [keys]
        nodes:
          piano: { unit: sampler, file: BANK }
          out: output
        connections:
          - keys -> piano
          - piano -> out
        """

    @Test("file: names the sampler's bank, relative to the session, and a save writes it back")
    func bankFromFile() throws {
        let folder = try temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder + "/bank", withIntermediateDirectories: true)
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        run.arguments = ["-s", "KILL", "30", "sox", "-n", "-r", "48000", "-c", "1", folder + "/bank/A4.wav", "synth", "1", "sine", "440"]
        try run.run()
        run.waitUntilExit()
        let session = try load(Self.text.replacingOccurrences(of: "BANK", with: "bank"), in: folder)
        let sampler = try #require(try session.graph.node(named: "piano").unit as? Sampler)
        #expect(sampler.contentPath == folder + "/bank")
        #expect(!sampler.isPlaceholder)
        #expect(session.warnings.isEmpty)
        #expect(SessionWriter.text(session.document()).contains("file: bank"))
    }

    @Test("a missing bank loads as a silent placeholder with a warning naming the file, and keeps its path")
    func missingBankIsAPlaceholder() throws {
        let folder = try temporaryFolder()
        let session = try load(Self.text.replacingOccurrences(of: "BANK", with: "missing.sf2"), in: folder)
        let sampler = try #require(try session.graph.node(named: "piano").unit as? Sampler)
        #expect(sampler.isPlaceholder)
        #expect(session.warnings.count == 1)
        #expect(session.warnings.first.map { "\($0)".contains("missing.sf2") && "\($0)".contains("placeholder") } == true)
        #expect(SessionWriter.text(session.document()).contains("file: missing.sf2"))
    }
}
