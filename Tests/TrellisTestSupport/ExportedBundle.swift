import Foundation

/// Trellis' own LV2 bundle, written once per test process by the `trellis` built beside
/// the tests (`trellis export-lv2`), with the plugin library built beside it.
public enum ExportedBundle {
    /// A folder holding `trellis.lv2`; put it in `LV2_PATH`.
    public static func folder() throws -> String {
        try written.get()
    }

    private static let written: Result<String, Error> = Result { try write() }

    private static func write() throws -> String {
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let folder = NSTemporaryDirectory() + "trellis-exported-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "trellis-exported-\(getpid())") }
        let process = Process()
        process.executableURL = build.appendingPathComponent("trellis")
        process.arguments = ["export-lv2", folder + "/trellis.lv2"]
        process.standardOutput = Pipe()
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestPluginError(message: "trellis export-lv2 failed (exit \(process.terminationStatus)): \(message)")
        }
        return folder
    }
}
