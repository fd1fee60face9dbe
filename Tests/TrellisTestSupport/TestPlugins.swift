import Foundation

/// LV2 plugins the tests build from source (Tests/Plugins) with the system C compiler,
/// for behaviour no packaged plugin shows on demand: the logger logs from `run` each
/// change of its `mark` control (a note, or a warning below zero); trellis-broken.lv2
/// holds plugins that cannot load (`unlinkedURI`, `needsFeatureURI`, `notInLibraryURI`).
public enum TestPlugins {
    public static let loggerURI = "http://example.org/trellis-test/logger"
    public static let unlinkedURI = "http://example.org/trellis-test/unlinked"
    public static let needsFeatureURI = "http://example.org/trellis-test/needs-feature"
    public static let notInLibraryURI = "http://example.org/trellis-test/not-in-library"

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

    /// Copies every bundle in Tests/Plugins and compiles each of its C files into a
    /// library of the same base name.
    private static func build() throws -> String {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Plugins").path
        let folder = NSTemporaryDirectory() + "trellis-test-plugins-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "trellis-test-plugins-\(getpid())") }
        let files = FileManager.default
        for bundleName in try files.contentsOfDirectory(atPath: sources).sorted() where bundleName.hasSuffix(".lv2") {
            let source = sources + "/" + bundleName, bundle = folder + "/" + bundleName
            try files.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            for file in try files.contentsOfDirectory(atPath: source).sorted() {
                if file.hasSuffix(".ttl") {
                    try files.copyItem(atPath: source + "/" + file, toPath: bundle + "/" + file)
                } else if file.hasSuffix(".c") {
                    try compile(source + "/" + file, to: bundle + "/" + file.dropLast(2) + ".so")
                }
            }
        }
        return folder
    }

    private static func compile(_ source: String, to library: String) throws {
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = ["cc", "-shared", "-fPIC", "-O2", "-o", library, source]
        try compiler.run()
        compiler.waitUntilExit()
        guard compiler.terminationStatus == 0 else {
            throw TestPluginError(message: "cc could not build \(source) (exit \(compiler.terminationStatus))")
        }
    }
}

public struct TestPluginError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
