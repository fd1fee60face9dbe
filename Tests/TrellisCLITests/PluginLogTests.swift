import Foundation
import Testing
import TrellisTestSupport

@Suite("Plugin log lines in the command line")
struct PluginLogTests {
    static let logger = "lv2:" + TestPlugins.loggerURI

    @Test("chain prints a plugin's note as a log line and counts it in the summary, in process and in a bridge process",
          arguments: ["no", "yes"])
    func chainPrintsNote(isolate: String) throws {
        let out = temporaryPath("out.wav")
        let result = try trellis(
            ["chain", "--duration", "0.5", "tone", "freq=440", "channels=1", "!", Self.logger, "mark=5", "isolate=\(isolate)", "!", out],
            environment: ["LV2_PATH": try TestPlugins.lv2Path()])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("log: node lv2-logger1 (\(Self.logger)) logs note: mark 5\n"), "\(result.stderr)")
        #expect(result.stderr.contains(", 0 warnings, 1 log line\n"), "\(result.stderr)")
    }

    @Test("chain prints a plugin's warning as a warning and counts it, in process and in a bridge process",
          arguments: ["no", "yes"])
    func chainPrintsWarning(isolate: String) throws {
        let out = temporaryPath("out.wav")
        let result = try trellis(
            ["chain", "--duration", "0.5", "tone", "freq=440", "channels=1", "!", Self.logger, "mark=-5", "isolate=\(isolate)", "!", out],
            environment: ["LV2_PATH": try TestPlugins.lv2Path()])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: node lv2-logger1 (\(Self.logger)) logs warning: mark -5 is below zero\n"), "\(result.stderr)")
        #expect(result.stderr.contains(", 1 warning\n"), "\(result.stderr)")
    }

    @Test("run --json writes the line the plugin logs in its first cycle as a notice, in process and in a bridge process",
          .liveAudio, arguments: [false, true])
    func runJSONHasFirstCycleLine(isolated: Bool) throws {
        let session = temporaryPath("log.yaml")
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
              fx: { lv2: \(TestPlugins.loggerURI), isolate: \(isolated), parameters: { mark: 3 } }
              out: { unit: output, channels: 1 }
            connections: [tone1 -> fx, fx -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let result = try trellis(
            ["run", session, "--start-server", "--server", "trellis-cli-log-\(getpid())-\(isolated)", "--duration", "1", "--json", "--no-control"],
            environment: ["LV2_PATH": try TestPlugins.lv2Path()])
        #expect(result.status == 0, "\(result.stderr)")
        // A bridge process may answer a cycle late on a busy machine; that notice is not this test's.
        let logNotices = result.stdout.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"notice","kind":"log""#) }
        #expect(logNotices == [
            #"{"type":"notice","kind":"log","node":"fx","unit":"lv2:http://example.org/trellis-test/logger","level":"note","line":"mark 3","message":"node fx (lv2:http://example.org/trellis-test/logger) logs note: mark 3"}"#
        ], "\(result.stdout)")
    }
}
