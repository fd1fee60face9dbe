import TrellisCore
import TrellisSession

/// Reads a command from its words. Checks form only (word counts, names, numbers);
/// whether a node or parameter exists is the dispatcher's business. Thread: any.
public enum CommandParser {
    public static func parse(line: String) throws(ControlError) -> ControlCommand {
        try parse(words: CommandTokenizer.words(line))
    }

    public static func parse(words: [String]) throws(ControlError) -> ControlCommand {
        if words.contains(";") {
            var commands: [ControlCommand] = []
            var players: [String] = [], starts: [PlayStart?] = []
            for part in words.split(separator: ";", omittingEmptySubsequences: false) {
                let command = try parse(words: Array(part))
                switch command {
                case .add, .remove, .connect, .disconnect: commands.append(command)
                // Plays joined with `;` start together, as one `play A B` does.
                case .transport(.play, let node): players.append(node); starts.append(nil)
                case .playTogether(let nodes, let at): players += nodes; starts.append(at)
                default: throw ControlError(.syntax, "only add, remove, connect and disconnect, or only plays, can be joined with ;")
                }
            }
            if !players.isEmpty {
                guard commands.isEmpty else { throw ControlError(.syntax, "plays and graph edits cannot be joined with ; (send them as two lines)") }
                let times = Set(starts.compactMap { $0.map { "\($0)" } })
                guard times.count <= 1 else { throw ControlError(.syntax, "plays joined with ; start together, so they take one start time") }
                return .playTogether(nodes: players, at: starts.compactMap { $0 }.first)
            }
            return .batch(commands)
        }
        guard let first = words.first else { throw ControlError(.syntax, "the line holds no command") }
        let verb = first.lowercased()
        let arguments = Array(words.dropFirst())
        func count(_ range: ClosedRange<Int>) throws(ControlError) {
            guard range.contains(arguments.count) else { throw usageError(verb, given: arguments.count) }
        }
        switch verb {
        case "hello":
            try count(0...0)
            return .hello
        case "help":
            try count(0...1)
            return .help(command: arguments.first?.lowercased())
        case "list":
            try count(0...0)
            return .list
        case "describe":
            try count(0...0)
            return .describe
        case "units":
            try count(0...1)
            return .units(matching: arguments.first)
        case "takes":
            try count(0...0)
            return .takes
        case "transport":
            return .clock(try clock(arguments))
        case "automate":
            return try automate(arguments)
        case "learn":
            if arguments.isEmpty { return .mappings }
            if arguments[0].lowercased() == "clear" {
                guard arguments.count <= 3 else { throw usageError(verb, given: arguments.count) }
                return .unlearn(node: arguments.count > 1 ? try nodeName(arguments[1]) : nil, parameter: arguments.count > 2 ? try parameterName(arguments[2]) : nil)
            }
            guard arguments.count == 2 || arguments.count == 4 else { throw usageError(verb, given: arguments.count) }
            return .learn(node: try nodeName(arguments[0]), parameter: try parameterName(arguments[1]),
                          minimum: arguments.count == 4 ? arguments[2] : nil, maximum: arguments.count == 4 ? arguments[3] : nil)
        case "undo", "redo":
            try count(0...0)
            return verb == "undo" ? .undo : .redo
        case "add":
            guard arguments.count >= 2 else { throw usageError(verb, given: arguments.count) }
            let node = try plainNodeName(arguments[0])
            var assignments: [ParameterAssignment] = []
            for word in arguments.dropFirst(2) {
                guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                    throw ControlError(.syntax, "add: \(CommandTokenizer.quote(word)) is not PARAM=VALUE")
                }
                assignments.append(ParameterAssignment(name: String(word[..<equals]), value: String(word[word.index(after: equals)...])))
            }
            return .add(node: node, unit: arguments[1], parameters: assignments)
        case "remove":
            try count(1...1)
            return .remove(node: try nodeName(arguments[0]))
        case "connect":
            try count(2...3)
            if arguments.count == 3 && arguments[2].lowercased() != "convert" {
                throw ControlError(.syntax, "connect: the third word may only be `convert`, not \(CommandTokenizer.quote(arguments[2]))")
            }
            return .connect(from: try bus(arguments[0]), to: try bus(arguments[1]), convert: arguments.count == 3)
        case "disconnect":
            try count(1...2)
            if arguments.count == 1 { return .disconnect(from: nil, to: try bus(arguments[0])) }
            return .disconnect(from: try bus(arguments[0]), to: try bus(arguments[1]))
        case "set":
            try count(3...4)
            var ramp: Double?
            if arguments.count == 4 {
                let word = arguments[3]
                guard word.lowercased().hasPrefix("ramp=") else {
                    throw ControlError(.syntax, "set: the fourth word must be ramp=MS, not \(CommandTokenizer.quote(word))")
                }
                let text = String(word.dropFirst(5))
                guard let value = Double(text), value.isFinite, value >= 0, value <= 3_600_000 else {
                    throw ControlError(.badValue, "set: ramp=\(text) is not a number of milliseconds from 0 to 3600000")
                }
                ramp = value
            }
            return .set(node: try nodeName(arguments[0]), parameter: try parameterName(arguments[1]), value: arguments[2], rampMilliseconds: ramp)
        case "get":
            try count(2...2)
            return .get(node: try nodeName(arguments[0]), parameter: try parameterName(arguments[1]))
        case "property":
            return try property(arguments)
        case "params":
            try count(1...1)
            return .params(node: try nodeName(arguments[0]))
        case "restart":
            try count(1...1)
            return .restart(node: try nodeName(arguments[0]))
        case "bypass":
            try count(2...2)
            return .bypass(node: try nodeName(arguments[0]), on: try onOff(arguments[1], verb))
        case "preset" where arguments.first?.lowercased() == "save" && arguments.count > 1:
            guard arguments.count >= 3 else { throw ControlError(.syntax, "preset save: name the node and the preset: preset save NODE NAME") }
            return .presetSave(node: try nodeName(arguments[1]), name: arguments.dropFirst(2).joined(separator: " "))
        case "preset":
            guard arguments.count >= 1 else { throw usageError(verb, given: arguments.count) }
            // A preset name may hold blanks, quoted or not; none lists them.
            return .preset(node: try nodeName(arguments[0]), name: arguments.count == 1 ? nil : arguments.dropFirst().joined(separator: " "))
        case "meter":
            try count(1...3)
            let rest = arguments.dropFirst().map { $0.lowercased() }
            switch rest {
            case []: return .meter(try bus(arguments[0]), loudness: nil)
            case ["loudness"]: return .meter(try bus(arguments[0]), loudness: .read)
            case ["loudness", "reset"]: return .meter(try bus(arguments[0]), loudness: .reset)
            default:
                throw ControlError(.syntax, "meter: expected meter BUS, meter BUS loudness or meter BUS loudness reset")
            }
        case "play" where arguments.count > 1:
            var names = arguments
            var at: PlayStart?
            if names.count >= 3, names[names.count - 2].lowercased() == "at" {
                at = try playStart(names[names.count - 1])
                names.removeLast(2)
            }
            return .playTogether(nodes: try names.map { argument throws(ControlError) in try nodeName(argument) }, at: at)
        case "tap":
            guard let action = arguments.first?.lowercased(), ["add", "remove", "stream"].contains(action) else {
                throw ControlError(.syntax, "tap: expected add, remove or stream\(arguments.first.map { ", not \(CommandTokenizer.quote($0))" } ?? "")")
            }
            if action == "stream" {
                guard arguments.count == 2 || (arguments.count == 4 && arguments[2].lowercased() == "for") else {
                    throw ControlError(.syntax, "tap stream: expected NODE.BUS [for SECONDS]")
                }
                var seconds: Double?
                if arguments.count == 4 {
                    guard let value = Double(arguments[3]), value.isFinite, value > 0, value <= 604_800 else {
                        throw ControlError(.badValue, "tap stream: \(CommandTokenizer.quote(arguments[3])) is not a duration in seconds (above 0, at most a week)")
                    }
                    seconds = value
                }
                return .tapStream(try bus(arguments[1]), seconds: seconds)
            }
            if action == "remove" {
                try count(2...2)
                return .tapRemove(try bus(arguments[1]))
            }
            guard arguments.count >= 3 else { throw usageError(verb, given: arguments.count) }
            var overwrite = false
            var settings = FileSettings()
            for word in arguments.dropFirst(3) {
                if word.lowercased() == "overwrite" {
                    overwrite = true
                    continue
                }
                try fileSetting(word, into: &settings)
            }
            return .tapAdd(try bus(arguments[1]), path: arguments[2], overwrite: overwrite, settings: settings)
        case "position":
            try count(1...1)
            return .position(node: try nodeName(arguments[0]))
        case "play", "pause", "stop":
            try count(1...1)
            let action: TransportAction = verb == "play" ? .play : verb == "pause" ? .pause : .stop
            return .transport(action, node: try nodeName(arguments[0]))
        case "seek":
            try count(2...2)
            guard let seconds = Double(arguments[1]), seconds.isFinite, seconds >= 0 else {
                throw ControlError(.badValue, "seek: \(CommandTokenizer.quote(arguments[1])) is not a time in seconds (0 or more)")
            }
            return .transport(.seek(seconds: seconds), node: try nodeName(arguments[0]))
        case "record":
            guard !arguments.isEmpty, let action = RecordAction(rawValue: arguments[0].lowercased()) else {
                throw ControlError(.syntax, "record: expected start, stop, pause, resume or meter\(arguments.first.map { ", not \(CommandTokenizer.quote($0))" } ?? "")")
            }
            var rest = Array(arguments.dropFirst())
            var overwrite = false, seconds: Double?
            if action == .start, rest.last?.lowercased() == "overwrite" {
                overwrite = true
                rest.removeLast()
            }
            if action == .start, rest.count >= 2, rest[rest.count - 2].lowercased() == "for" {
                guard let value = Double(rest[rest.count - 1]), value.isFinite, value > 0, value <= 604_800 else {
                    throw ControlError(.badValue, "record: \(CommandTokenizer.quote(rest[rest.count - 1])) is not a duration in seconds (above 0, at most a week)")
                }
                seconds = value
                rest.removeLast(2)
            }
            guard rest.count <= 1 else { throw usageError(verb, given: arguments.count) }
            return .record(action, recorder: try rest.first.map { (name) throws(ControlError) in try nodeName(name) }, seconds: seconds, overwrite: overwrite)
        case "file":
            try count(3...3)
            return .file(node: try nodeName(arguments[0]), name: arguments[1], path: arguments[2])
        case "save" where arguments.first == "--bundle":
            guard arguments.count == 2 else { throw ControlError(.syntax, "save --bundle: name one new or empty folder: save --bundle FOLDER") }
            return .saveBundle(folder: arguments[1])
        case "save":
            try count(0...1)
            return .save(path: arguments.first)
        case "load":
            try count(1...1)
            return .load(path: arguments[0])
        case "jack":
            try count(3...3)
            switch arguments[0].lowercased() {
            case "connect": return .jackConnect(port: arguments[1], peer: arguments[2])
            case "disconnect": return .jackDisconnect(port: arguments[1], peer: arguments[2])
            default: throw ControlError(.syntax, "jack: expected connect or disconnect, not \(CommandTokenizer.quote(arguments[0]))")
            }
        case "program":
            try count(0...0)
            return .program
        case "status":
            try count(0...1)
            if let word = arguments.first, word.lowercased() != "peek" {
                throw ControlError(.syntax, "status takes no word but peek, not \(CommandTokenizer.quote(word))")
            }
            return .status(peek: !arguments.isEmpty)
        case "watch":
            return try watch(arguments)
        case "mode":
            try count(1...1)
            guard let mode = ControlMode(rawValue: arguments[0].lowercased()) else {
                throw ControlError(.syntax, "mode: expected text or json, not \(CommandTokenizer.quote(arguments[0]))")
            }
            return .mode(mode)
        case "bye", "quit":
            try count(0...0)
            return .bye
        default:
            let hint = Suggestions.didYouMean(Suggestions.closest(to: verb, among: CommandHelp.entries.map(\.verb)))
            throw ControlError(.unknownCommand, "no command \(CommandTokenizer.quote(printable(first)))\(hint); `help` lists them")
        }
    }

    /// `at`'s time: frames (`960000`), seconds of graph time (`20s`), or seconds from
    /// now (`+2`).
    private static func playStart(_ word: String) throws(ControlError) -> PlayStart {
        let text = word.lowercased()
        if text.hasPrefix("+"), let seconds = Double(text.dropFirst().hasSuffix("s") ? String(text.dropFirst().dropLast()) : String(text.dropFirst())),
           seconds.isFinite, seconds >= 0, seconds <= 86_400 {
            return .fromNow(seconds)
        }
        if text.hasSuffix("s"), let seconds = Double(text.dropLast()), seconds.isFinite, seconds >= 0, seconds <= 1e9 {
            return .seconds(seconds)
        }
        if let frames = Int64(text), frames >= 0, frames <= TimeContext.maximumFrame { return .sampleTime(frames) }
        throw ControlError(.badValue, "play: \(CommandTokenizer.quote(word)) is not a start time: a sample time (frames, at most \(TimeContext.maximumFrame)), seconds of graph time (20s) or seconds from now (+2)")
    }

    /// One `key=value` of a tap's file settings, checked as a session's recorder checks it.
    private static func fileSetting(_ word: String, into settings: inout FileSettings) throws(ControlError) {
        guard let equals = word.firstIndex(of: "=") else {
            throw ControlError(.syntax, "tap add: \(CommandTokenizer.quote(word)) is not overwrite or one of \(FileSettings.keys.map { $0 + "=" }.joined(separator: ", "))")
        }
        let key = word[..<equals].lowercased(), value = String(word[word.index(after: equals)...])
        func bad(_ expected: String) -> ControlError {
            ControlError(.badValue, "tap add: \(key)=\(value): expected \(expected)")
        }
        switch key {
        case "sample-type":
            guard let type = SampleType(rawValue: value.lowercased()) else { throw bad("float32, int16, int24 or int32") }
            settings.sampleType = type
        case "dither":
            guard let on = ["on": true, "true": true, "tpdf": true, "off": false, "false": false, "none": false][value.lowercased()] else {
                throw bad("on or off")
            }
            settings.dither = on
        case "quality":
            guard let quality = Double(value), quality.isFinite, (0...1).contains(quality) else { throw bad("a Vorbis quality from 0 to 1") }
            settings.quality = quality
        case "sample-rate":
            guard let rate = Double(value), rate >= 1_000, rate <= 768_000 else { throw bad("a rate from 1000 to 768000 Hz") }
            settings.sampleRate = rate
        case "channels":
            guard let channels = Int(value), (1...256).contains(channels) else { throw bad("a channel count from 1 to 256") }
            settings.channels = channels
        default:
            throw ControlError(.syntax, "tap add: \(CommandTokenizer.quote(String(key))) is not one of \(FileSettings.keys.joined(separator: ", "))")
        }
    }

    private static func watch(_ arguments: [String]) throws(ControlError) -> ControlCommand {
        if arguments.count == 1 && arguments[0].lowercased() == "off" { return .unwatch }
        var request = WatchRequest()
        for word in arguments {
            if word.lowercased() == "loudness" {
                request.loudness = true
                continue
            }
            guard let equals = word.firstIndex(of: "=") else {
                throw ControlError(.syntax, "watch: \(CommandTokenizer.quote(word)) is not off, loudness, events=, meters=, slow-meters=, rate=, time= or boundaries=")
            }
            let key = word[..<equals].lowercased(), value = String(word[word.index(after: equals)...])
            let items = value.split(separator: ",").map(String.init)
            switch key {
            case "events":
                var kinds: Set<ControlEventKind> = []
                for item in items {
                    guard let kind = ControlEventKind(rawValue: item.lowercased()) else {
                        let known = ControlEventKind.allCases.map(\.rawValue).joined(separator: ", ")
                        throw ControlError(.syntax, "watch: no event kind \(CommandTokenizer.quote(item)) (known: \(known))")
                    }
                    kinds.insert(kind)
                }
                request.kinds = kinds
            case "meters", "slow-meters":
                var buses: [BusName] = []
                for item in items { buses.append(try bus(item)) }
                if key == "meters" { request.meters = buses } else { request.slowMeters = buses }
                request.kinds.insert(.meter)
            case "rate":
                guard let rate = Double(value), rate >= 0.1, rate <= 100 else {
                    throw ControlError(.badValue, "watch: rate=\(value) is not a number of meter readings per second from 0.1 to 100")
                }
                request.rate = rate
            case "time":
                guard let seconds = Double(value), seconds >= 0.01, seconds <= 3_600 else {
                    throw ControlError(.badValue, "watch: time=\(value) is not an interval in seconds from 0.01 to 3600")
                }
                request.timeInterval = seconds
                request.kinds.insert(.time)
            case "boundaries":
                var times: [Double] = []
                for item in items {
                    guard let seconds = Double(item), seconds.isFinite, seconds >= 0 else {
                        throw ControlError(.badValue, "watch: boundary \(CommandTokenizer.quote(item)) is not a time in seconds (0 or more)")
                    }
                    times.append(seconds)
                }
                guard !times.isEmpty, times.count <= 1_000 else {
                    throw ControlError(.badValue, "watch: boundaries= takes 1 to 1000 times in seconds")
                }
                request.boundaries = times.sorted()
                request.kinds.insert(.boundary)
            default:
                throw ControlError(.syntax, "watch: \(CommandTokenizer.quote(String(key))) is not events, meters, rate, time or boundaries")
            }
        }
        return .watch(request)
    }

    static func usageError(_ verb: String, given: Int) -> ControlError {
        let usage = CommandHelp.entry(verb)?.usage ?? verb
        return ControlError(.syntax, "\(verb): \(given) word\(given == 1 ? "" : "s") after the command do not fit; usage: \(usage)")
    }

    /// A node's name, or the path of a node inside subgraph nodes (`strip/trim`).
    static func nodeName(_ word: String) throws(ControlError) -> String {
        let parts = word.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return try plainNodeName(word) }
        guard parts.count <= 33 else { throw ControlError(.syntax, "a node path goes at most 32 subgraphs deep; this one has \(parts.count) parts") }
        for part in parts { _ = try plainNodeName(String(part)) }
        return word
    }

    /// A name for a new node, as sessions allow them: letters, digits, `_` and `-`, not
    /// starting with a digit or `-`.
    static func plainNodeName(_ word: String) throws(ControlError) -> String {
        guard word.unicodeScalars.count <= SessionName.maximumLength else {
            throw ControlError(.syntax, "a node name may have at most \(SessionName.maximumLength) characters; this one has \(word.unicodeScalars.count)")
        }
        guard let first = word.unicodeScalars.first, first == "_" || isLetter(first),
              word.unicodeScalars.allSatisfy({ isLetter($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" })
        else {
            throw ControlError(.syntax, "\(CommandTokenizer.quote(printable(word))) is not a node name (letters, digits, _ and -, starting with a letter or _)")
        }
        return word
    }

    static func parameterName(_ word: String) throws(ControlError) -> String {
        guard !word.isEmpty, !word.contains("=") else {
            throw ControlError(.syntax, "\(CommandTokenizer.quote(printable(word))) is not a parameter name")
        }
        return word
    }

    static func bus(_ word: String) throws(ControlError) -> BusName {
        guard let dot = word.firstIndex(of: ".") else { return BusName(node: try nodeName(word)) }
        let node = try nodeName(String(word[..<dot]))
        let text = word[word.index(after: dot)...]
        if text.hasPrefix("midi") {
            let number = text.dropFirst(4)
            if number.isEmpty { return BusName(node: node, midi: true) }
            guard let bus = Int(number), bus >= 0, bus < 4096 else {
                throw ControlError(.syntax, "\(CommandTokenizer.quote(printable(word))): a MIDI bus is written NODE.midi or NODE.midiN")
            }
            return BusName(node: node, bus: bus, midi: true)
        }
        guard let bus = Int(text), bus >= 0, bus < 4096 else {
            throw ControlError(.syntax, "\(CommandTokenizer.quote(printable(word))): the bus after the dot must be a number from 0 (or midi, midiN)")
        }
        return BusName(node: node, bus: bus)
    }

    /// `property NODE`, `property get NODE NAME [SCOPE] [ELEMENT]`,
    /// `property set NODE NAME VALUE [SCOPE] [ELEMENT]`.
    static func property(_ arguments: [String]) throws(ControlError) -> ControlCommand {
        if arguments.count == 1 { return .properties(node: try nodeName(arguments[0])) }
        let action = arguments.first?.lowercased()
        let fixed = action == "get" ? 3 : 4
        guard action == "get" || action == "set", (fixed...fixed + 2).contains(arguments.count) else {
            throw usageError("property", given: arguments.count)
        }
        var place = PropertyPlace(scope: nil, element: nil)
        for word in arguments.dropFirst(fixed) {
            if place.scope == nil, let scope = Scope(rawValue: word.lowercased()) {
                place.scope = scope
            } else if place.element == nil, let element = Int(word), (0..<4096).contains(element) {
                place.element = element
            } else {
                throw ControlError(.syntax, "property: \(CommandTokenizer.quote(printable(word))) is neither a scope (global, input, output) nor an element number (0 to 4095)")
            }
        }
        let node = try nodeName(arguments[1]), name = arguments[2]
        return action == "get" ? .propertyGet(node: node, name: name, place)
            : .propertySet(node: node, name: name, value: arguments[3], place)
    }

    static func automate(_ arguments: [String]) throws(ControlError) -> ControlCommand {
        if arguments.first?.lowercased() == "clear" {
            guard arguments.count <= 3 else { throw usageError("automate", given: arguments.count) }
            return .automateClear(node: arguments.count > 1 ? try nodeName(arguments[1]) : nil,
                                  parameter: arguments.count > 2 ? try parameterName(arguments[2]) : nil)
        }
        var words = Array(arguments.dropFirst(2))
        let stepped = words.last?.lowercased() == "step"
        if stepped { words.removeLast() }
        guard arguments.count >= 4, words.count % 2 == 0, words.count / 2 <= 10_000 else { throw usageError("automate", given: arguments.count) }
        var points: [LanePoint] = []
        for index in stride(from: 0, to: words.count, by: 2) {
            guard let time = TransportTime(words[index]) else {
                throw ControlError(.badValue, "automate: \(CommandTokenizer.quote(printable(words[index]))) (point \(index / 2 + 1)) is not a position: frames, seconds (1.5s), bars|beats|ticks (3|1|0) or SMPTE")
            }
            points.append(LanePoint(time: time, value: words[index + 1]))
        }
        return .automate(node: try nodeName(arguments[0]), parameter: try parameterName(arguments[1]), points: points, stepped: stepped)
    }

    static func clock(_ arguments: [String]) throws(ControlError) -> ClockRequest {
        guard let action = arguments.first?.lowercased() else { return .show }
        func one() throws(ControlError) -> String {
            guard arguments.count == 2 else { throw usageError("transport", given: arguments.count) }
            return arguments[1]
        }
        switch action {
        case "play" where arguments.count == 1: return .play
        case "stop" where arguments.count == 1: return .stop
        case "locate":
            let word = try one()
            guard let time = TransportTime(word) else {
                throw ControlError(.badValue, "transport locate: \(CommandTokenizer.quote(printable(word))) is not a position: frames (96000), seconds (2.5s), bars|beats|ticks (3|1|0) or SMPTE (00:00:02:12, 00:01:00;02 drop-frame), within ten million seconds")
            }
            return .locate(time)
        case "tempo":
            let word = try one()
            guard let tempo = Double(word), (1...999).contains(tempo) else {
                throw ControlError(.outOfRange, "transport tempo: \(CommandTokenizer.quote(printable(word))) is not a tempo from 1 to 999 beats per minute")
            }
            return .tempo(tempo)
        case "meter":
            let word = try one()
            let parts = word.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let beats = Int(parts[0]), let unit = Int(parts[1]), (1...64).contains(beats), [1, 2, 4, 8, 16, 32].contains(unit) else {
                throw ControlError(.badValue, "transport meter: \(CommandTokenizer.quote(printable(word))) is not a meter such as 4/4 or 6/8 (1 to 64 beats of a 1, 2, 4, 8, 16 or 32 note)")
            }
            return .meter(beatsPerBar: beats, beatUnit: unit)
        default:
            throw usageError("transport", given: arguments.count)
        }
    }

    static func onOff(_ word: String, _ verb: String) throws(ControlError) -> Bool {
        switch word.lowercased() {
        case "on", "true", "1": return true
        case "off", "false", "0": return false
        default: throw ControlError(.syntax, "\(verb): expected on or off, not \(CommandTokenizer.quote(printable(word)))")
        }
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// A word cut short for a message, so an error line stays readable.
    static func printable(_ word: String) -> String {
        word.count > 40 ? String(word.prefix(40)) + "..." : word
    }
}
