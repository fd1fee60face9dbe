import Foundation
import Testing
@testable import TrellisSession

/// An executable built beside the test bundle.
func builtExecutable(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
}

let blobState = String(repeating: "<> <http://example.org/p#blob> \"0123456789abcdef0123456789abcdef\" .\n", count: 256)

/// A chain of `gains` gains with placeholders carrying 16 KB of state between them:
/// about a megabyte of session.
func bigSession(gains: Int) -> String {
    var text = "version: 1\nnodes:\n  tone1: tone\n"
    var connections = ["tone1 -> gain1"]
    let state = blobState
    for index in 1...gains {
        text += "  gain\(index):\n    unit: gain\n    parameters:\n      gain: -\(index % 10)\n"
        if index % 10 == 0 {
            text += "  hold\(index):\n    lv2: http://example.org/plugins/absent-\(index)\n    state: |\n"
            text += state.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n") + "\n"
            connections += ["gain\(index) -> hold\(index)"]
            connections += index < gains ? ["hold\(index) -> gain\(index + 1)"] : ["hold\(index) -> out"]
        } else {
            connections += index < gains ? ["gain\(index) -> gain\(index + 1)"] : ["gain\(index) -> out"]
        }
    }
    text += "  out: output\nconnections:\n" + connections.map { "  - \($0)\n" }.joined()
    return text
}

@Suite("Crash safety of saves")
struct CrashSafetyTests {
    @Test("SIGKILL at random moments during saves always leaves a whole session, old or new")
    func killDuringSave() throws {
        let folder = try temporaryFolder()
        let path = folder + "/big.yaml"
        try bigSession(gains: 600).write(toFile: path, atomically: false, encoding: .utf8)
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 900_000)
        var random = SeededGenerator(state: 7)
        var values = Set<Float>()
        for _ in 0..<10 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: builtExecutable("SessionSaveLoop"))
            process.arguments = [path, "gain1", "gain"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Wait until it has loaded and begun saving, then kill it somewhere in a save.
            _ = output.fileHandleForReading.availableData
            usleep(UInt32.random(in: 100_000...1_500_000, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            let session = try SessionLoader.load(path: path, registry: testRegistry(), options: .init(initialize: false))
            #expect(session.graph.nodes.count == 600 + 60 + 2)
            #expect(session.placeholders.allSatisfy { ($0.unit as? PlaceholderUnit)?.spec.state == blobState })
            values.insert(try session.graph.node(named: "gain1").unit.parameterValue(.init(0)))
        }
        // Saves did happen between the kills.
        #expect(values.count > 1)
    }
}
