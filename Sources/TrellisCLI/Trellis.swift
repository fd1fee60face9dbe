import ArgumentParser
import Foundation
import Logging
import TrellisChain

@main
struct Trellis: ParsableCommand {
    static let version = TrellisVersion.text

    static let configuration = CommandConfiguration(
        commandName: "trellis",
        abstract: "A headless audio workstation: audio units, graphs, LV2 plugins and JACK.",
        version: version,
        subcommands: [UnitsCommand.self, InfoCommand.self, ValidateCommand.self, RunCommand.self, RenderCommand.self, ChainCommand.self, CtlCommand.self, NSMCommand.self, RecoverCommand.self, AnalyzeCommand.self, GraphCommand.self, ExportLV2Command.self, BridgeCommand.self]
    )

    /// `trellis-nsm`, a link to trellis, is `trellis nsm`: session managers start a
    /// program by name alone.
    static func main() {
        let name = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent }
        let arguments = Array(CommandLine.arguments.dropFirst())
        let journal = JournalLogHandler.standardErrorIsJournal()
        Units.setReport { level, text in
            Log.logger.log(level: level == .error ? .error : level == .warning ? .warning : .debug, "\(text)")
        }
        do {
            var command = try parseAsRoot(name == "trellis-nsm" ? ["nsm"] + arguments : arguments)
            try command.run()
            ProcessEnd.endIfKept()
        } catch {
            // Under systemd the error that ends the run is logged at error priority.
            let code = exitCode(for: error)
            guard journal, code != .success else { exit(withError: error) }
            JournalLogHandler.write(fullMessage(for: error), priority: 3)
            Foundation.exit(code.rawValue)
        }
    }
}

/// Logs go to stderr so that stdout stays for results a program reads; under systemd,
/// in the journal's conventions.
enum Log {
    static let logger: Logger = {
        let journal = JournalLogHandler.standardErrorIsJournal()
        LoggingSystem.bootstrap { label -> any LogHandler in journal ? JournalLogHandler() : StreamLogHandler.standardError(label: label) }
        var logger = Logger(label: "trellis")
        logger.logLevel = .info
        return logger
    }()
}
