import Foundation
import Testing

/// Runs the built `trellis` with `arguments`.
/// `trellis` with `arguments`, killed if it runs past five minutes.
func trellis(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["-k", "5", "300", builtExecutable("trellis")] + arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

@Suite("trellis validate")
struct ValidateCommandTests {
    @Test("a good session exits 0 with a one-line summary")
    func goodSession() throws {
        let result = try trellis(["validate", sessionsFolder + "/tone-gain.yaml"])
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("tone-gain.yaml: ok (4 nodes, 3 connections, 48000 Hz, block 256)\n"))
        #expect(result.stderr.isEmpty)
    }

    @Test("a bad session exits 1 with file:line:column: message on stderr")
    func badSession() throws {
        let path = try temporaryFolder() + "/bad.yaml"
        try replacing("freq: 440", with: "freq: 0x1B8").write(toFile: path, atomically: false, encoding: .utf8)
        let result = try trellis(["validate", path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("\(path):6:13: node \"tone1\": expected a value for freq"))
        #expect(result.stderr.contains("hexadecimal"))
    }

    @Test("every bad node and connection is reported, each at its place, in one run")
    func everyError() throws {
        let path = try temporaryFolder() + "/many.yaml"
        try """
            version: 1
            nodes:
              tone1: { unit: tone, channels: 1 }
              a: { unit: gian }
              b: { unit: gain, parameters: { gain: loud } }
              c: { unit: gain, channels: 1, parameters: { gian: 3 } }
              out: { unit: output, channels: 1 }
            connections:
              - tone1 -> c -> out
              - a -> b
              - ghost -> out
            """.write(toFile: path, atomically: false, encoding: .utf8)
        let result = try trellis(["validate", path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(result.stderr)")
        #expect(lines.count == 4 && lines[0].hasPrefix("\(path):4:14: node \"a\": no unit named \"gian\""))
        #expect(lines.count == 4 && lines[1].hasPrefix("\(path):5:40: node \"b\": expected a value for gain"))
        #expect(lines.count == 4 && lines[2].hasPrefix("\(path):6:47: node \"c\": gain (aufx:gain:trls) has no parameter named \"gian\""))
        #expect(lines.count == 4 && lines[3] == "\(path):11:5: connection \"ghost -> out\": no node named \"ghost\"")
    }

    @Test("--show-program prints the compiled program after the summary")
    func showProgram() throws {
        let result = try trellis(["validate", "--show-program", sessionsFolder + "/tone-gain.yaml"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count >= 3 && lines[1].hasPrefix("program: ") && lines.contains { $0.contains("render ") }, "\(result.stdout)")
    }

    @Test("placeholders are warnings on stderr and the session still validates")
    func placeholdersWarn() throws {
        let result = try trellis(["validate", sessionsFolder + "/placeholder-and-state.yaml"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("placeholder-and-state.yaml:8:10: warning: node \"reverb\""))
        #expect(result.stdout.contains("1 placeholder"))
    }

    @Test("a subgraph definition no node uses is checked too, at the line of its error")
    func unusedSubgraphChecked() throws {
        let path = try temporaryFolder() + "/unused.yaml"
        let text = """
            version: 1
            nodes:
              tone1: { unit: tone, channels: 1 }
              out: { unit: output, channels: 1 }
            connections: [tone1 -> out]
            subgraphs:
              spare:
                nodes:
                  in: { unit: input, channels: 1 }
                  boost: { unit: gian, channels: 1 }
                  out: { unit: output, channels: 1 }
                connections: [in -> boost, boost -> out]
            """
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let result = try trellis(["validate", path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(path):10:22: node \"boost\": no unit named \"gian\""), "\(result.stderr)")
        try text.replacingOccurrences(of: "gian", with: "gain").write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try trellis(["validate", path]).status == 0)
    }

    @Test("a missing file exits 1 and says so")
    func missingFile() throws {
        let result = try trellis(["validate", "/nonexistent/session.yaml"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("/nonexistent/session.yaml:1:1: /nonexistent/session.yaml: no such file"))
    }
}

@Suite("trellis validate on the examples")
struct ValidateExamplesTests {
    @Test("every file in Sessions/ validates with the trellis command, with no warning")
    func everyExampleValidates() throws {
        for file in exampleFiles() {
            let result = try trellis(["validate", file])
            #expect(result.status == 0, "\(file): \(result.stderr)")
            let name = URL(fileURLWithPath: file).lastPathComponent
            if name != "placeholder-and-state.yaml" {
                #expect(!result.stderr.contains("warning"), "\(file): \(result.stderr)")
            }
        }
    }
}
