import Foundation
import ArgumentParser

/// What `render` and `chain` do about loudness: the output is always measured (EBU R128)
/// and the figures close the summary; `--normalize` brings it to a target.
struct LoudnessOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Write the output at this integrated loudness, as -14LUFS or -23 (two passes over a temporary file).", valueName: "LUFS"))
    var normalize: String?

    @Option(name: .customLong("true-peak"), parsing: .unconditional, help: ArgumentHelp("With --normalize: the true-peak ceiling in dBTP (default -1); a limiter keeps it where gain alone would not.", valueName: "dBTP"))
    var truePeak: String?

    @Flag(help: "Print the summary as JSON on stdout (loudness included).")
    var json = false

    @Flag(name: .customLong("no-loudness"), help: "Do not measure the output: the summary has no loudness. Measuring costs about 10 ns a stereo frame on the writer's thread, which a machine with two cores feels.")
    var noLoudness = false

    /// The target in LUFS, when normalizing.
    func target() throws(CLIError) -> Double? {
        if noLoudness, normalize != nil { throw CLIError("--no-loudness and --normalize disagree: normalizing measures the output") }
        guard let normalize else {
            if truePeak != nil { throw CLIError("--true-peak \(truePeak!) applies with --normalize; give both") }
            return nil
        }
        guard let value = Self.number(normalize, unit: "lufs"), (-70...0).contains(value) else {
            throw CLIError("--normalize \(normalize): give an integrated loudness from -70 to 0 LUFS, as -14LUFS")
        }
        return value
    }

    /// The ceiling in dBTP.
    func ceiling() throws(CLIError) -> Double {
        guard let truePeak else { return -1 }
        guard let value = Self.number(truePeak, unit: "dbtp"), (-30...0).contains(value) else {
            throw CLIError("--true-peak \(truePeak): give a ceiling from -30 to 0 dBTP, as -1")
        }
        return value
    }

    /// `-14`, `-14LUFS`, `-14 lufs`: the number, the unit optional.
    private static func number(_ text: String, unit: String) -> Double? {
        var text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasSuffix(unit) { text = String(text.dropLast(unit.count)).trimmingCharacters(in: .whitespaces) }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
