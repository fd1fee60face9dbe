import Foundation
import Testing
import TrellisSession

/// One file of every session format version Trellis has written, kept as written.
let versionFiles: [String] = {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Versions").path
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted().map { folder + "/" + $0 }
}()

@Suite("Session files of every version")
struct SessionVersionTests {
    @Test("there is a file for every version this Trellis reads")
    func everyVersionHasAFile() {
        let versions = versionFiles.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
        #expect(versions == (1...SessionDocument.currentVersion).map(String.init), "\(versions)")
    }

    @Test("each version's file loads, with every section it holds", arguments: versionFiles)
    func versionLoads(_ path: String) throws {
        let session = try SessionLoader.load(path: path, registry: testRegistry())
        let names = ["in", "split", "tone1", "eq1", "drums", "drums_conv", "echo", "swap", "mix", "strip1", "strip2", "softer", "trim", "out", "keys"]
        #expect(Set(session.graph.nodes.map(\.name)) == Set(names))
        #expect(session.recorders.map(\.name) == ["mixdown"])
        #expect(session.jack?.inputs == ["mic1", "mic2"])
        #expect(session.warnings.isEmpty, "\(session.warnings)")
    }
}
