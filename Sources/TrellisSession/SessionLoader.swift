import Foundation
import TrellisCore
import TrellisEngine
import TrellisGraph

/// How to load: overrides of the session's defaults, and how much to check.
public struct SessionLoadOptions: Sendable {
    /// Overrides `defaults: sample-rate` (else 48 kHz).
    public var sampleRate: Double?
    /// Overrides `defaults: block-size` (else 1024).
    public var blockSize: Int?
    /// Initializes the graph (formats checked, program compiled) as the last step.
    public var initialize = true
    /// Checks that players' files exist and recorders' folders do.
    public var checkFiles = true
    /// Builds the graph on this engine, so a running backend picks the new graph up at
    /// its next cycle (a glitch-free `load`).
    public var engine: RenderEngine?

    public init(sampleRate: Double? = nil, blockSize: Int? = nil, initialize: Bool = true, checkFiles: Bool = true, engine: RenderEngine? = nil) {
        self.engine = engine
        self.sampleRate = sampleRate
        self.blockSize = blockSize
        self.initialize = initialize
        self.checkFiles = checkFiles
    }
}

/// Reads session files and builds their graphs: the whole graph or nothing, with every
/// failure a `SessionError` at the place in the file that caused it.
///
/// Thread: control.
public enum SessionLoader {
    /// Loads the session file at `path` (relative paths inside it are relative to it).
    public static func load(
        path: String, registry: ComponentRegistry, options: SessionLoadOptions = .init()
    ) throws(SessionError) -> LoadedSession {
        let text = try readSessionFile(path, at: SourceLocation(file: path, line: 1, column: 1))
        let document = try SessionParser.parse(text, file: path)
        return try load(document: document, directory: directoryOf(path), path: path, registry: registry, options: options)
    }

    /// Loads session text; `file` names it in messages and `directory` anchors relative paths.
    public static func load(
        text: String, file: String, directory: String, registry: ComponentRegistry, options: SessionLoadOptions = .init()
    ) throws(SessionError) -> LoadedSession {
        let document = try SessionParser.parse(text, file: file)
        return try load(document: document, directory: directory, path: nil, registry: registry, options: options)
    }

    /// Builds the graph a decoded document describes.
    public static func load(
        document: SessionDocument, directory: String, path: String? = nil, registry: ComponentRegistry, options: SessionLoadOptions = .init()
    ) throws(SessionError) -> LoadedSession {
        let sampleRate = options.sampleRate ?? document.defaults.sampleRate ?? 48_000
        let blockSize = options.blockSize ?? document.defaults.blockSize ?? 1024
        let builder = GraphBuilder(registry: registry, sampleRate: sampleRate, blockSize: blockSize, checkFiles: options.checkFiles, engine: options.engine)
        if let path { builder.fileStack = [standardized(path)] }
        let scope = GraphBuilder.Definitions(subgraphs: document.graph.subgraphs, parent: nil, directory: directory, file: document.file)
        let built = try builder.build(document.graph, scope: scope, prefix: "", stack: [], jack: document.jack)
        let checks = SessionChecks(document: document, built: built, directory: directory, checkFiles: options.checkFiles)
        let recorders = try checks.recorders()
        try checks.jack()
        if options.initialize {
            do { try built.graph.initialize() } catch { throw builder.locate(error, in: document.graph, built: built, file: document.file) }
        }
        return LoadedSession(
            document: document, graph: built.graph, path: path, sampleRate: sampleRate, blockSize: blockSize,
            players: builder.players, recorders: recorders, warnings: builder.warnings, baselines: builder.baselines)
    }

    static func readSessionFile(_ path: String, at location: SourceLocation) throws(SessionError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"
            throw SessionError("\(path): \(reason)", at: location)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SessionError("\(path) is not UTF-8 text", at: location)
        }
        return text
    }

    static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` relative to `directory` unless absolute.
    static func resolve(_ path: String, in directory: String) -> String {
        if path.hasPrefix("/") || directory == "." { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
