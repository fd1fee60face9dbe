import ArgumentParser
import Foundation
import Logging

@main
struct Trellis: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "trellis",
        abstract: "A headless audio workstation: audio units, graphs, LV2 plugins and JACK.",
        version: version,
        subcommands: [UnitsCommand.self, InfoCommand.self, ValidateCommand.self, RunCommand.self, RenderCommand.self, ChainCommand.self, CtlCommand.self, NSMCommand.self, RecoverCommand.self, ExportLV2Command.self, BridgeCommand.self]
    )

    /// `trellis-nsm`, a link to trellis, is `trellis nsm`: session managers start a
    /// program by name alone.
    static func main() {
        let name = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent }
        let arguments = Array(CommandLine.arguments.dropFirst())
        main(name == "trellis-nsm" ? ["nsm"] + arguments : arguments)
    }
}

/// Logs go to stderr so that stdout stays for results a program reads.
enum Log {
    static let logger: Logger = {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "trellis")
        logger.logLevel = .info
        return logger
    }()
}
