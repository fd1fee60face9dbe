import Foundation

/// What tests of plugins in bridge processes need: the `trellis` built beside the tests
/// as the bridge, and the fault fixtures built from Plugins/fixtures/faulty.lv2.
public enum BridgeSupport {
    /// Makes bridged plugins start the `trellis` built beside the tests (once per process).
    public static func useBuiltTrellis() { _ = installed }

    private static let installed: Void = {
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        setenv("TRELLIS_BRIDGE_EXECUTABLE", build.appendingPathComponent("trellis").path, 1)
    }()

    /// A folder holding `faulty.lv2`, built once per test process with its `build`
    /// script (so by `cc`); put it in an LV2 search path.
    public static func faultyFolder() throws -> String { try faulty.get() }

    private static let faulty: Result<String, Error> = Result {
        var source = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { source.deleteLastPathComponent() }
        let script = source.appendingPathComponent("Plugins/fixtures/faulty.lv2/build").path
        let folder = NSTemporaryDirectory() + "trellis-faulty-\(getpid())"
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "trellis-faulty-\(getpid())") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [script, folder + "/faulty.lv2"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestPluginError(message: "building faulty.lv2 failed (exit \(process.terminationStatus)): \(message)")
        }
        return folder
    }
}
