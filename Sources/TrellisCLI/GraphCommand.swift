import ArgumentParser
import Foundation
import Glibc
import TrellisChain
import TrellisAudioFile
import TrellisGraph
import TrellisSession

struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw a session's graph, laid out by Graphviz's dot: SVG, PNG, the DOT text, or the layout as JSON.",
        discussion: """
            Nodes with their units and buses, audio connections solid, MIDI dashed, subgraphs as \
            clusters, the delays that align latencies with their frames (in red), bypassed nodes \
            greyed. The picture is drawn by Graphviz's `dot` (the graphviz package), run as a \
            separate program; the file is written whole or not at all.
            """)

    @Argument(help: "The session file.")
    var session: String

    @Option(name: .shortAndLong, help: "The picture: .svg, .png, .dot for the text dot reads, or .json for dot's layout (every node's position, for a page to draw).")
    var output: String

    func run() throws {
        let loaded: LoadedSession
        do { loaded = try SessionLoader.load(path: session, registry: try Units.shared()) } catch {
            throw CLIError("\(error)")
        }
        try Self.draw(loaded.graph, title: URL(fileURLWithPath: session).lastPathComponent, to: output)
        FileHandle.standardError.write(Data("\(output): \(loaded.graph.nodes.count) nodes\n".utf8))
    }

    /// Writes `graph`'s picture to `path`, its format from the extension.
    static func draw(_ graph: Graph, title: String, to path: String) throws(CLIError) {
        let format = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard ["svg", "png", "dot", "json"].contains(format) else {
            throw CLIError("graph: \(path): name an .svg, .png, .dot or .json file")
        }
        let text = GraphPicture.dot(graph, title: title)
        let bytes: Data
        if format == "dot" { bytes = Data(text.utf8) } else { bytes = try Self.runDot(text, format: format) }
        // Whole or not at all: written to a new file beside the target, then renamed over
        // it, which must be a plain file of this user's or nothing (`WriteTarget`).
        let target: WriteTarget
        do { target = try WriteTarget(path, followingLinks: false) } catch { throw CLIError("graph: \(error)") }
        let (fd, partial): (Int32, String)
        switch TemporaryFile.create(beside: path, extension: format) {
        case .success(let created): (fd, partial) = created
        case .failure(let error): throw CLIError("graph: could not write \(path): \(error)")
        }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let flushed = fchmod(fd, target.mode) == 0 && fsync(fd) == 0
        close(fd)
        guard written == bytes.count, flushed, rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw CLIError("graph: could not write \(path): \(reason)")
        }
    }

    /// `dot -Tsvg` or `-Tpng` on `text`, within 30 s.
    private static func runDot(_ text: String, format: String) throws(CLIError) -> Data {
        let dot = ["/usr/bin/dot", "/usr/local/bin/dot"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let dot else { throw CLIError("graph: drawing needs Graphviz's dot (apt-get install graphviz); a .dot file needs nothing") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dot)
        process.arguments = ["-T\(format)"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { throw CLIError("graph: could not start \(dot): \(error.localizedDescription)") }
        let deadline = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: deadline)
        defer { deadline.cancel() }
        // A dot that ends early (an error) makes the write fail, never a SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        DispatchQueue(label: "dot-input").async {
            try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
            try? input.fileHandleForWriting.close()
        }
        let collected = Locked(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        Thread {
            collected.value = errors.fileHandleForReading.readDataToEndOfFile()
            errorsRead.signal()
        }.start()
        let picture = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errorsRead.wait()
        guard process.terminationReason == .exit, process.terminationStatus == 0, !picture.isEmpty else {
            throw CLIError("graph: dot failed: \(String(decoding: collected.value, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return picture
    }
}

/// A value one thread writes and another reads after.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
