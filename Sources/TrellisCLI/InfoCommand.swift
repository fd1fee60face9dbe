import ArgumentParser
import Foundation
import TrellisChain
import TrellisCore
import TrellisLV2

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show a unit's buses, parameters (ranges and defaults) and properties.")

    @Argument(help: "A short name, a type:subtype:manufacturer triple, or an LV2 URI.")
    var unit: String

    @Flag(help: "Write JSON instead of text.")
    var json = false

    @Option(help: "The sample rate the unit is initialized at, for the latency it reports (Hz).")
    var sampleRate: Double = 48_000

    func run() throws {
        guard sampleRate.isFinite, sampleRate >= 1_000, sampleRate <= 768_000 else {
            throw CLIError("--sample-rate \(sampleRate): give a rate from 1000 to 768000 Hz")
        }
        let registry = try Units.shared()
        let output = OwnStandardOutput.divertPlugins()
        let info = try UnitInfo(named: unit, registry: registry, sampleRate: sampleRate)
        output.write(Data(((json ? try JSONText.encode(info) : info.text) + "\n").utf8))
    }
}
