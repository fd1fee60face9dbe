import ArgumentParser
import Foundation
import TrellisChain
import TrellisCore
import TrellisGraph
import TrellisSession

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check session files without running them.",
        discussion: """
            Loads each session as `run` and `render` would (units, parameters, connections, subgraphs, \
            files, JACK ports, subgraph definitions no node uses) and stops there. A file that loads gets \
            a one-line summary; one that does not, `file:line:column: message` on stderr for every error found. Exit status 0 \
            when every file loads, 1 otherwise. Warnings (plugins that load \
            as placeholders) go to stderr in the same form.
            """)

    @Argument(help: "The session files (YAML).")
    var sessions: [String]

    @Flag(name: .long, help: "Print each session's compiled program: its steps, buffers, delays and latency, and its schedule when it has one.")
    var showProgram = false

    @Option(help: "Also draw the session's graph to FILE (.svg, .png or .dot), as `trellis graph` does (one session only).")
    var graph: String?

    @OptionGroup var parallel: ThreadsOption

    func validate() throws {
        guard !sessions.isEmpty else { throw ValidationError("name at least one session file") }
        guard graph == nil || sessions.count == 1 else { throw ValidationError("--graph draws one session; name one file") }
    }

    func run() throws {
        let registry = try Units.shared()
        var failed = false
        for session in sessions where !check(session, registry: registry) { failed = true }
        if failed { throw ExitCode.failure }
    }

    /// Loads one file as run would, reporting on stdout or stderr; false when it fails.
    private func check(_ session: String, registry: ComponentRegistry) -> Bool {
        let loaded: LoadedSession
        do {
            var options = parallel.loadOptions
            options.checkUnusedSubgraphs = true
            loaded = try SessionLoader.load(path: session, registry: registry, options: options)
        } catch {
            FileHandle.standardError.write(Data((error.lines.joined(separator: "\n") + "\n").utf8))
            return false
        }
        for warning in loaded.warnings {
            FileHandle.standardError.write(Data((warning.description + "\n").utf8))
        }
        let graph = loaded.graph
        var parts = ["\(graph.nodes.count) node\(graph.nodes.count == 1 ? "" : "s")", "\(graph.connections.count) connection\(graph.connections.count == 1 ? "" : "s")"]
        let midi = graph.midiConnections.count
        if midi > 0 { parts.append("\(midi) MIDI connection\(midi == 1 ? "" : "s")") }
        if !loaded.placeholders.isEmpty { parts.append("\(loaded.placeholders.count) placeholder\(loaded.placeholders.count == 1 ? "" : "s")") }
        if !loaded.players.isEmpty { parts.append("\(loaded.players.count) player\(loaded.players.count == 1 ? "" : "s")") }
        if !loaded.recorders.isEmpty { parts.append("\(loaded.recorders.count) recorder\(loaded.recorders.count == 1 ? "" : "s")") }
        print("\(session): ok (\(parts.joined(separator: ", ")), \(Int(loaded.sampleRate)) Hz, block \(loaded.blockSize))")
        if showProgram { print(graph.programListing) }
        if let picture = self.graph {
            do { try GraphCommand.draw(graph, title: URL(fileURLWithPath: session).lastPathComponent, to: picture) } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                return false
            }
        }
        return true
    }
}
