/// An effect chain written as gst-launch writes pipelines: stages separated by `!`,
/// each a word and `name=value` settings. The first stage is a source (a file, `tone`,
/// or `jack`), the last a sink (a file or `jack`), the ones between are units.
struct ChainPipeline: Equatable {
    struct Stage: Equatable {
        /// A file path, `tone`, `jack`, or a unit (short name, triple, `lv2:URI`).
        var word: String
        var settings: [(name: String, value: String)]
        /// Where the stage starts among the arguments, for messages.
        var position: Int

        static func == (lhs: Stage, rhs: Stage) -> Bool {
            lhs.word == rhs.word && lhs.position == rhs.position
                && lhs.settings.map(\.name) == rhs.settings.map(\.name) && lhs.settings.map(\.value) == rhs.settings.map(\.value)
        }
    }

    var source: Stage
    var units: [Stage]
    var sink: Stage

    /// The rate `converter rate=HZ` stages ask for: a chain runs at one rate, and a
    /// converter asked for another sets it (the source file is converted to it at the
    /// chain's edge, as `--sample-rate` does). `rate=0` asks for none.
    func converterRate() throws(CLIError) -> Double? {
        var rate: Double?
        for stage in units where stage.word.lowercased() == "converter" {
            guard let text = stage.settings.first(where: { $0.name.lowercased() == "rate" })?.value else { continue }
            guard let value = Double(text), value == 0 || (value >= 1_000 && value <= 768_000) else {
                throw CLIError("chain: converter rate=\(text) (argument \(stage.position)): expected a rate from 1000 to 768000 Hz")
            }
            guard value > 0 else { continue }
            if let rate, rate != value {
                throw CLIError("chain: two converters ask for \(Int(rate)) and \(Int(value)) Hz; a chain runs at one rate")
            }
            rate = value
        }
        return rate
    }

    /// Parses the arguments after `trellis chain`.
    init(arguments: [String]) throws(CLIError) {
        var stages: [Stage] = []
        var current: Stage?
        for (position, argument) in arguments.enumerated() {
            if argument == "!" {
                guard let stage = current else { throw CLIError("chain: empty stage before \"!\" (argument \(position + 1))") }
                stages.append(stage)
                current = nil
                continue
            }
            if var stage = current {
                guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                    throw CLIError("chain: \"\(argument)\" (argument \(position + 1)) should be name=value after \"\(stage.word)\"")
                }
                stage.settings.append((String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
                current = stage
            } else {
                current = Stage(word: argument, settings: [], position: position + 1)
            }
        }
        guard let last = current else { throw CLIError("chain: the pipeline must end with a sink (a file or jack)") }
        stages.append(last)
        guard stages.count >= 2 else {
            throw CLIError("chain: a pipeline needs a source and a sink, e.g. in.wav ! eq ! out.wav")
        }
        source = stages.first!
        sink = stages.last!
        units = Array(stages.dropFirst().dropLast())
    }
}
