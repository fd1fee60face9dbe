/// An effect chain written as gst-launch writes pipelines: stages separated by `!`,
/// each a word and `name=value` settings. The first stage is a source (a file, `tone`,
/// or `jack`), the last a sink (a file or `jack`), the ones between are units.
public struct ChainPipeline: Equatable {
    public struct Stage: Equatable {
        /// A file path, `tone`, `jack`, or a unit (short name, triple, `lv2:URI`).
        public var word: String
        public var settings: [(name: String, value: String)]
        /// Where the stage starts among the arguments, for messages.
        public var position: Int

        public init(word: String, settings: [(name: String, value: String)], position: Int) {
            self.word = word
            self.settings = settings
            self.position = position
        }

        public static func == (lhs: Stage, rhs: Stage) -> Bool {
            lhs.word == rhs.word && lhs.position == rhs.position
                && lhs.settings.map(\.name) == rhs.settings.map(\.name) && lhs.settings.map(\.value) == rhs.settings.map(\.value)
        }
    }

    public var source: Stage
    public var units: [Stage]
    public var sink: Stage

    public init(source: Stage, units: [Stage], sink: Stage) {
        self.source = source
        self.units = units
        self.sink = sink
    }

    /// The rate `converter rate=HZ` stages ask for: a chain runs at one rate, and a
    /// converter asked for another sets it (the source file is converted to it at the
    /// chain's edge, as `--sample-rate` does). `rate=0` asks for none.
    public func converterRate() throws(CommandError) -> Double? {
        var rate: Double?
        for stage in units where stage.word.lowercased() == "converter" {
            guard let text = stage.settings.first(where: { $0.name.lowercased() == "rate" })?.value else { continue }
            guard let value = Double(text), value == 0 || (value >= 1_000 && value <= 768_000) else {
                throw CommandError("chain: converter rate=\(text) (argument \(stage.position)): expected a rate from 1000 to 768000 Hz")
            }
            guard value > 0 else { continue }
            if let rate, rate != value {
                throw CommandError("chain: two converters ask for \(Int(rate)) and \(Int(value)) Hz; a chain runs at one rate")
            }
            rate = value
        }
        return rate
    }

    /// Parses the arguments after `trellis chain`.
    public init(arguments: [String]) throws(CommandError) {
        let end = "chain: the pipeline must end with a sink (a file or jack)"
        let stages = try Self.stages(arguments, missingEnd: end)
        guard stages.count >= 2 else {
            throw CommandError(stages.isEmpty ? end : "chain: a pipeline needs a source and a sink, e.g. in.wav ! eq ! out.wav", kind: .argument)
        }
        source = stages.first!
        sink = stages.last!
        units = Array(stages.dropFirst().dropLast())
    }

    /// The units of a chain written without its ends (`eq band0.freq=120 ! gain`), as
    /// the C interface takes them; none for no words.
    public static func units(_ words: [String]) throws(CommandError) -> [Stage] {
        try stages(words, missingEnd: "chain: the chain ends with \"!\"; a unit must follow it")
    }

    /// Words split into stages at each lone `!`.
    private static func stages(_ arguments: [String], missingEnd: String) throws(CommandError) -> [Stage] {
        var stages: [Stage] = []
        var current: Stage?
        for (position, argument) in arguments.enumerated() {
            if argument == "!" {
                guard let stage = current else { throw CommandError("chain: empty stage before \"!\" (argument \(position + 1))", kind: .argument) }
                stages.append(stage)
                current = nil
                continue
            }
            if var stage = current {
                guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                    throw CommandError("chain: \"\(argument)\" (argument \(position + 1)) should be name=value after \"\(stage.word)\"", kind: .argument)
                }
                stage.settings.append((String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
                current = stage
            } else {
                current = Stage(word: argument, settings: [], position: position + 1)
            }
        }
        if let last = current {
            stages.append(last)
        } else if !arguments.isEmpty {
            throw CommandError(missingEnd, kind: .argument)
        }
        return stages
    }
}
