import ArgumentParser
import Foundation
import TrellisLV2

/// The bridge process an isolated plugin runs in (`isolate: true`): started by the
/// host with the shared memory on descriptor 3 and the control socket on 4. Not for
/// people; hidden from help.
struct BridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridge",
        abstract: "Host one plugin for a Trellis process (started by Trellis itself).",
        shouldDisplay: false)

    @Option(help: "The host's process id; the bridge dies with it.")
    var parent: Int32

    @Flag(help: "Instantiate the plugins named on standard input, one after another (discovery's check).")
    var probe = false

    func run() throws {
        let status = probe ? LV2BridgeChild.probe(parent: parent) : LV2BridgeChild.run(parent: parent)
        if status != 0 { throw ExitCode(status) }
    }
}
