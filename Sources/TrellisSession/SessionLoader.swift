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
    /// Refuses, before parsing, a file without a top-level `version:` line, and says
    /// nothing of its content: for a path that came over the control protocol.
    public var onlySessions = false
    /// Builds subgraph definitions no node uses, to report their errors too (`validate`).
    public var checkUnusedSubgraphs = false
    /// Overrides `threads:`; used, like it, only when the graph gets an engine of its own.
    public var threads: Int?
    /// Runs every plugin in a process of its own (or none), whatever the session's
    /// `isolate:` says; nodes that say otherwise still win. nil: as the session says.
    public var isolate: Bool?
    /// The threads when neither `threads` nor the session says (a program's own default:
    /// the processors online for `trellis run` and `render`).
    public var defaultThreads = 1
    /// Whether the schedule is kept only where measured faster, or always run.
    public var schedule = Parallelism.Choice.measured
    /// The graph's `memoryBudget` in bytes; nil for the default.
    public var memoryBudget: Int?

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
        if options.onlySessions, !hasVersionLine(text) {
            throw SessionError(
                "\(path) is not a Trellis session: it has no top-level \"version:\" line (nothing of the file is shown)",
                at: SourceLocation(file: path, line: 1, column: 1))
        }
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
        let converterRate = try document.graph.converterRate(registry: registry, defaults: document.defaults.sampleRate)
        let sampleRate = options.sampleRate ?? document.defaults.sampleRate ?? converterRate ?? 48_000
        let blockSize = options.blockSize ?? document.defaults.blockSize ?? 1024
        let builder = GraphBuilder(
            registry: registry, sampleRate: sampleRate, blockSize: blockSize, checkFiles: options.checkFiles, engine: options.engine,
            isolatesPlugins: options.isolate ?? document.isolate ?? false)
        builder.transport = document.transport
        if let path { builder.fileStack = [standardized(path)] }
        let scope = GraphBuilder.Definitions(subgraphs: document.graph.subgraphs, parent: nil, directory: directory, file: document.file)
        let built: GraphBuilder.Built
        do {
            built = try builder.build(document.graph, scope: scope, prefix: "", stack: [], jack: document.jack)
            if options.checkUnusedSubgraphs { try builder.checkUnusedDefinitions(in: scope) }
        } catch {
            // A limit stopped the build: what it found up to there.
            throw builder.errors.isEmpty ? error : SessionError.combined(builder.errors)
        }
        if !builder.errors.isEmpty { throw SessionError.combined(builder.errors) }
        for spec in document.midiMap { try builder.map(spec, in: built, jack: document.jack) }
        let checks = SessionChecks(document: document, built: built, directory: directory, checkFiles: options.checkFiles)
        let recorders = try checks.recorders()
        try checks.recordersSpare(builder.players, recorders)
        try checks.jack()
        let locate = { (error: GraphError) -> SessionError in builder.locate(error, in: document.graph, built: built, file: document.file) }
        if options.engine == nil {
            built.graph.engine.parallelism = Parallelism(
                threads: options.threads ?? document.threads ?? options.defaultThreads, choice: options.schedule)
        }
        if let budget = options.memoryBudget { built.graph.memoryBudget = budget }
        if options.initialize {
            do { try built.graph.initialize() } catch { throw locate(error) }
        }
        let loaded = LoadedSession(
            document: document, graph: built.graph, path: path, sampleRate: sampleRate, blockSize: blockSize,
            players: builder.players, recorders: recorders, warnings: builder.warnings, baselines: builder.baselines,
            locate: locate)
        loaded.writtenAutomation = Dictionary(uniqueKeysWithValues: built.graph.nodes.compactMap { node in
            let lanes = built.graph.automation(of: node.id)
            return lanes.isEmpty ? nil : (node.name, lanes)
        })
        return loaded
    }

    /// The largest session file read: far past any real session, small enough that a
    /// file that is not one costs little to refuse.
    public static let maximumFileBytes = 16 << 20

    /// Reads a regular file of at most `maximumFileBytes`. A FIFO or device is refused
    /// before it is read, so a load never waits on a writer that may never come.
    static func readSessionFile(_ path: String, at location: SourceLocation) throws(SessionError) -> String {
        let bytes: [UInt8]
        do { bytes = try Files.readRegular(path, limit: maximumFileBytes) } catch {
            switch error {
            case .missing: throw SessionError("\(path): no such file", at: location)
            case .unreadable(let reason): throw SessionError("\(path): cannot be read (\(reason))", at: location)
            case .folder: throw SessionError("\(path) is a folder, not a session file", at: location)
            case .fifo: throw SessionError("\(path) is a FIFO, not a session file: sessions are read from regular files", at: location)
            case .device: throw SessionError("\(path) is a device or socket, not a session file", at: location)
            case .tooLarge(let size): throw SessionError("\(path) is \(size) bytes; a session file may have at most \(maximumFileBytes) (16 MiB)", at: location)
            case .grew: throw SessionError("\(path) grew past \(maximumFileBytes) bytes (16 MiB) while it was read", at: location)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SessionError("\(path) is not UTF-8 text", at: location)
        }
        return text
    }

    /// Whether `text` has a top-level `version:` line: what a file must have before its
    /// content is quoted in any message, when someone other than its reader may have
    /// named it.
    static func hasVersionLine(_ text: String) -> Bool {
        text.split(separator: "\n", omittingEmptySubsequences: true).contains(where: isVersionLine)
    }

    private static func isVersionLine(_ line: Substring) -> Bool {
        guard line.hasPrefix("version") else { return false }
        return line.dropFirst(7).drop { $0 == " " || $0 == "\t" }.first == ":"
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
