import Foundation

/// LV2 plugins the tests build from source (Tests/Plugins) with the system C compiler,
/// for behaviour no packaged plugin shows on demand: the logger logs from `run` each
/// change of its `mark` control (a note, or a warning below zero).
public enum TestPlugins {
    public static let loggerURI = "http://example.org/trellis-test/logger"

    /// A folder holding the built bundles, made once per test process; put it first
    /// in `LV2_PATH` (`lv2Path`).
    public static func folder() throws -> String {
        try built.get()
    }

    /// `LV2_PATH` for a process that should see the test plugins and the system's.
    public static func lv2Path() throws -> String {
        try folder() + ":" + (ProcessInfo.processInfo.environment["LV2_PATH"] ?? "/usr/lib/lv2")
    }

    private static let built: Result<String, Error> = Result { try build() }

    private static func build() throws -> String {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Plugins").path
        let folder = NSTemporaryDirectory() + "trellis-test-plugins-\(getpid())"
        let bundle = folder + "/trellis-logger.lv2"
        try? FileManager.default.removeItem(atPath: folder)
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "trellis-test-plugins-\(getpid())") }
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        for file in ["manifest.ttl", "logger.ttl"] {
            try FileManager.default.copyItem(atPath: sources + "/trellis-logger.lv2/" + file, toPath: bundle + "/" + file)
        }
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = ["cc", "-shared", "-fPIC", "-O2", "-o", bundle + "/logger.so", sources + "/trellis-logger.lv2/logger.c"]
        try compiler.run()
        compiler.waitUntilExit()
        guard compiler.terminationStatus == 0 else {
            throw TestPluginError(message: "cc could not build the test plugin (exit \(compiler.terminationStatus))")
        }
        return folder
    }
}

public struct TestPluginError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
