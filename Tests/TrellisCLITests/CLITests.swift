import Foundation
import Testing

/// Runs the built `trellis` executable, which sits beside the test bundle.
func trellis(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let process = Process()
    process.executableURL = directory.appendingPathComponent("trellis")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

@Suite("The trellis command")
struct CLITests {
    @Test("units lists the built-ins with their triples")
    func unitsListsBuiltIns() throws {
        let result = try trellis(["units"])
        #expect(result.status == 0)
        for line in ["augn:tone:trls  tone", "auou:genr:trls  output", "aufc:splt:trls  splitter", "aufc:merg:trls  merger"] {
            #expect(result.stdout.contains(line), "missing \(line)")
        }
    }

    @Test("units --json is a JSON array naming each unit's triple")
    func unitsJSON() throws {
        let result = try trellis(["units", "--json"])
        let entries = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(entries.contains { $0["triple"] as? String == "augn:tone:trls" && $0["name"] as? String == "tone" })
    }

    @Test("info tone --json parses as JSON and names its parameters")
    func infoToneJSON() throws {
        let result = try trellis(["info", "tone", "--json"])
        #expect(result.status == 0)
        let info = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let parameters = try #require(info["parameters"] as? [[String: Any]])
        let names = Set(parameters.compactMap { $0["identifier"] as? String })
        #expect(names.isSuperset(of: ["waveform", "freq", "amp"]))
        let frequency = try #require(parameters.first { $0["identifier"] as? String == "freq" })
        #expect(frequency["defaultValue"] as? Double == 440)
    }

    @Test("info finds a unit by its triple")
    func infoByTriple() throws {
        let result = try trellis(["info", "aufx:gain:trls"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("gain (aufx:gain:trls)"))
    }

    @Test("an unknown unit fails with status 1 and suggests the closest names")
    func unknownUnit() throws {
        let result = try trellis(["info", "tnoe"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no unit named \"tnoe\" (did you mean tone?)"))
    }

    @Test("--version prints the version")
    func version() throws {
        let result = try trellis(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }
}
