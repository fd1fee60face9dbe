import ArgumentParser
import Foundation
import TrellisGraph
import TrellisSession

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a session file without running it.",
        discussion: """
            Loads the session as `run` and `render` would (units, parameters, connections, subgraphs, \
            files, JACK ports) and stops there. Exit status 0 when it loads, with a one-line summary; \
            1 with `file:line:column: message` on stderr when it does not. Warnings (plugins that load \
            as placeholders) go to stderr in the same form.
            """)

    @Argument(help: "The session file (YAML).")
    var session: String

    func run() throws {
        let registry = try Units.registry()
        let loaded: LoadedSession
        do {
            var options = SessionLoadOptions()
            options.checkUnusedSubgraphs = true
            loaded = try SessionLoader.load(path: session, registry: registry, options: options)
        } catch {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw ExitCode.failure
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
    }
}
