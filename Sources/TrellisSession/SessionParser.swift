import TrellisCore
import TrellisEngine
import Yams

/// Session text to `SessionDocument`: YAML through Yams' composer (for positions),
/// then every field decoded by hand into its type.
public enum SessionParser {
    static let topKeys = ["version", "defaults", "threads", "isolate", "jack", "transport", "nodes", "connections", "subgraphs", "recorders", "midi-map"]
    static let bodyKeys = ["nodes", "connections", "subgraphs"]
    static let nodeKeys = [
        "unit", "lv2", "subgraph", "parameters", "preset", "state", "files", "bypass",
        "inputs", "outputs", "channels", "input-channels", "output-channels", "channel-map", "file", "loops",
        "automation", "isolate", "deadline", "on-fault", "restart",
    ]

    /// Decodes a whole session. `file` names the text in positions. Thread: any.
    public static func parse(_ text: String, file: String) throws(SessionError) -> SessionDocument {
        let reader = YAMLReader(file: file)
        let root = try compose(text, reader)
        var document = SessionDocument(file: file)
        let fields = try reader.fields(root, expected: "a session (a mapping with version, nodes, connections...)", allowed: topKeys, required: ["version"])
        let versionNode = fields["version"]!
        let version = try reader.integer(versionNode, expected: "the format version", in: 0...Int.max)
        guard version == SessionDocument.currentVersion else {
            throw reader.error("this Trellis reads session format version \(SessionDocument.currentVersion), not \(version)", versionNode)
        }
        document.version = version
        if let node = fields["defaults"] { document.defaults = try defaults(node, reader) }
        if let node = fields["threads"] {
            document.threads = try reader.integer(node, expected: "a thread count: 1 (one thread) up to \(Parallelism.maximumThreads)", in: 1...Parallelism.maximumThreads)
        }
        if let node = fields["isolate"] {
            let text = try reader.text(node, expected: "true, false, yes or no")
            guard let value = StrictScalar.boolean(text) ?? ["yes": true, "no": false][text] else {
                throw reader.error("isolate: \(quoted(text)) is not true, false, yes or no", node)
            }
            document.isolate = value
        }
        if let node = fields["jack"] { document.jack = try jack(node, reader) }
        if let node = fields["transport"] { document.transport = try transport(node, reader) }
        document.graph = try body(fields, location: reader.location(root), reader)
        if let node = fields["recorders"] { document.recorders = try recorders(node, reader) }
        if let node = fields["midi-map"] { document.midiMap = try midiMap(node, reader) }
        document.comments = SessionComments.read(text, root: root)
        return document
    }

    static func compose(_ text: String, _ reader: YAMLReader) throws(SessionError) -> Node {
        let start = SourceLocation(file: reader.file, line: 1, column: 1)
        try NestingCheck.check(text, file: reader.file)
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw yamlError(error, reader)
        } catch {
            throw SessionError("not readable as YAML: \(error)", at: start)
        }
        guard let root else { throw SessionError("the file is empty; a session needs at least `version: 1`", at: start) }
        return root
    }

    static func yamlError(_ error: YamlError, _ reader: YAMLReader) -> SessionError {
        func at(_ mark: Mark) -> SourceLocation { SourceLocation(file: reader.file, line: max(1, mark.line), column: max(1, mark.column)) }
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let while_ = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
            return SessionError("not valid YAML: \(problem)\(while_)", at: at(mark))
        case .reader(let problem, let offset, _, let yaml):
            var line = 1, column = 1
            if let offset {
                for byte in yaml.utf8.prefix(offset) {
                    if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
                }
            }
            return SessionError("not readable as text: \(problem)", at: SourceLocation(file: reader.file, line: line, column: column))
        default:
            return SessionError("not valid YAML: \(error)", at: SourceLocation(file: reader.file, line: 1, column: 1))
        }
    }

    static func transport(_ node: Node, _ reader: YAMLReader) throws(SessionError) -> TransportSpec {
        let fields = try reader.fields(node, expected: "transport", allowed: TransportSpec.keys)
        var spec = TransportSpec()
        if let value = fields["tempo"] {
            spec.tempo = try reader.number(value, expected: "a tempo in beats per minute", in: TransportSpec.tempoRange)
        }
        if let value = fields["meter"] {
            let text = try reader.text(value, expected: "a meter such as 4/4 or 6/8")
            guard let meter = TransportSpec.meter(text) else {
                throw reader.error("transport: meter \(quoted(text)) is not a meter: beats in a bar (1 to 64), a slash, and the beat's note value (1, 2, 4, 8, 16 or 32), as in 4/4 or 6/8", value)
            }
            spec.meter = meter
        }
        if let value = fields["rolling"] { spec.rolling = try reader.boolean(value, expected: "true or false") }
        if let value = fields["source"] {
            let text = try reader.text(value, expected: "a transport source")
            guard let source = TransportSpec.Source(rawValue: text) else {
                throw reader.error("transport: source \(quoted(text)) is not a source: internal, jack (follow JACK transport) or jack-master (follow it and be its timebase master)", value)
            }
            spec.source = source
        }
        if let value = fields["smpte"] {
            let text = try reader.text(value, expected: "an SMPTE frame rate")
            guard let rate = SMPTERate(rawValue: text.lowercased()) else {
                throw reader.error("transport: smpte \(quoted(text)) is not a frame rate: 24, 25, 29.97df or 30", value)
            }
            spec.smpte = rate
        }
        if let value = fields["start"] {
            let text = try reader.text(value, expected: "a transport position")
            guard let start = TransportTime(text) else {
                throw reader.error("transport: start \(quoted(text)) is not a position: frames (96000), seconds (2.5s), bars|beats|ticks (3|1|0) or SMPTE (00:00:02:12)", value)
            }
            spec.start = start
            guard spec.clock(sampleRate: 48_000) != nil else {
                throw reader.error("transport: start \(quoted(text)) is no position in this meter or frame rate (a beat past the bar's last, or a drop-frame label that is skipped)", value)
            }
        }
        return spec
    }

    static func defaults(_ node: Node, _ reader: YAMLReader) throws(SessionError) -> SessionDefaults {
        let fields = try reader.fields(node, expected: "defaults", allowed: ["sample-rate", "block-size"])
        var result = SessionDefaults()
        if let value = fields["sample-rate"] {
            result.sampleRate = try reader.number(value, expected: "a sample rate in Hz", in: 1000...768_000)
            result.positions["sample-rate"] = reader.location(value)
        }
        if let value = fields["block-size"] {
            result.blockSize = try reader.integer(value, expected: "a block size in frames", in: 16...8192)
            result.positions["block-size"] = reader.location(value)
        }
        return result
    }

    /// `nodes`, `connections` and `subgraphs` of a session or an inline subgraph.
    static func body(_ fields: YAMLReader.Fields, location: SourceLocation, _ reader: YAMLReader) throws(SessionError) -> GraphBody {
        var body = GraphBody()
        body.location = location
        // A bad node, connection or subgraph is noted and the rest read, to report them all.
        var errors: [SessionError] = []
        func collect(_ body: () throws(SessionError) -> Void) throws(SessionError) {
            do { try body() } catch {
                if error.stopsReading { throw error }
                errors.append(error)
                if errors.count >= SessionError.limit { throw SessionError.combined(errors) }
            }
        }
        if let node = fields["nodes"] {
            body.positions["nodes"] = fields.keyLocation("nodes", reader: reader)
            for entry in try reader.entries(node, expected: "the nodes, a mapping of name to unit") {
                try collect { () throws(SessionError) in body.nodes.append(try nodeSpec(entry, reader)) }
            }
        }
        if let node = fields["connections"] {
            for item in try reader.items(node, expected: "a list of connections like \"tone1.0 -> out.0\"") {
                try collect { () throws(SessionError) in body.connections += try connections(item, reader) }
            }
        }
        if let node = fields["subgraphs"] {
            for entry in try reader.entries(node, expected: "the subgraphs, a mapping of name to definition") {
                try collect { () throws(SessionError) in body.subgraphs.append(try subgraph(entry, reader)) }
            }
        }
        if !errors.isEmpty { throw SessionError.combined(errors) }
        return body
    }

    static func nodeSpec(_ entry: YAMLReader.Entry, _ reader: YAMLReader) throws(SessionError) -> NodeSpec {
        let name = try reader.name(entry.keyNode, what: "node")
        let location = reader.location(entry.keyNode)
        // `name: unit` is short for `name: { unit: unit }`.
        if case .scalar = entry.value {
            let unit = try reader.text(entry.value, expected: "a unit (short name, type:subtype:manufacturer or lv2:URI) or the node's settings")
            var spec = NodeSpec(name: name, source: .unit(unit), location: location)
            spec.positions["unit"] = reader.location(entry.value)
            return spec
        }
        let fields = try reader.fields(entry.value, expected: "node \(quoted(name))", allowed: nodeKeys)
        let sources = ["unit", "lv2", "subgraph"].filter { fields[$0] != nil }
        guard sources.count == 1 else {
            let message = sources.isEmpty
                ? "node \(quoted(name)) needs one of unit:, lv2: or subgraph:"
                : "node \(quoted(name)) has both \(sources[0]): and \(sources[1]):; give one"
            throw SessionError(message, at: sources.isEmpty ? location : fields.keyLocation(sources[1], reader: reader))
        }
        let kind = sources[0]
        let sourceNode = fields[kind]!
        let source: NodeSource
        switch kind {
        case "unit": source = .unit(try reader.text(sourceNode, expected: "a unit: a short name, type:subtype:manufacturer or lv2:URI"))
        case "lv2": source = .lv2(try reader.text(sourceNode, expected: "an LV2 plugin URI"))
        default: source = .subgraph(try reader.name(sourceNode, what: "subgraph"))
        }
        var spec = NodeSpec(name: name, source: source, location: location)
        spec.positions[kind] = reader.location(sourceNode)
        for entry in fields.entries { spec.positions[entry.key] = reader.location(entry.value) }
        if let node = fields["parameters"] {
            for parameter in try reader.entries(node, expected: "parameters, a mapping of name to value") {
                let value = try reader.text(parameter.value, expected: "a value for parameter \(quoted(parameter.key))")
                spec.parameters.append(ParameterSetting(
                    name: parameter.key, value: value, location: reader.location(parameter.keyNode), valueLocation: reader.location(parameter.value)))
            }
        }
        if let node = fields["files"] {
            for file in try reader.entries(node, expected: "files, a mapping of name to path (files: { sample: kick.wav })") {
                let path = try reader.path(file.value, expected: "a file path for \(quoted(file.key))")
                spec.files.append(ParameterSetting(
                    name: file.key, value: path, location: reader.location(file.keyNode), valueLocation: reader.location(file.value)))
            }
        }
        // Node keys are read by the rules `ctl add` and `trellis chain` read them by.
        var settings = NodeDescription(unit: spec.unitText)
        for key in NodeDescription.Key.allCases {
            guard let node = fields[key.rawValue] else { continue }
            let text = try reader.text(node, expected: "a value for \(key.rawValue)")
            do { try settings.set(key, from: text) } catch {
                throw reader.error("node \(quoted(name)): \(error)", node)
            }
        }
        spec.inputs = settings.inputs
        spec.outputs = settings.outputs
        spec.channels = settings.channels
        spec.inputChannels = settings.inputChannels
        spec.outputChannels = settings.outputChannels
        spec.state = settings.state
        spec.preset = settings.preset
        spec.bypass = settings.bypass
        spec.channelMap = settings.channelMap
        spec.isolate = settings.isolate
        spec.deadline = settings.deadline
        spec.onFault = settings.onFault
        spec.restart = settings.restart
        if let node = fields["file"] { spec.file = try reader.path(node, expected: "an audio file path") }
        if let node = fields["loops"] { spec.loops = try reader.integer(node, expected: "a loop count (-1 loops forever)", in: -1...1_000_000) }
        if spec.loops != nil && spec.file == nil {
            throw SessionError("loops: needs file: (only a file player loops)", at: fields.keyLocation("loops", reader: reader))
        }
        if let node = fields["automation"] { spec.automation = try automation(node, reader) }
        return spec
    }

    /// `midi-map:`: a list of controller mappings.
    static func midiMap(_ node: Node, _ reader: YAMLReader) throws(SessionError) -> [MIDIMapSpec] {
        let items = try reader.items(node, expected: "a list of controller mappings ({ cc: 7, to: node.parameter })")
        guard items.count <= 4096 else { throw reader.error("midi-map: at most 4096 mappings", node) }
        var result: [MIDIMapSpec] = []
        for item in items {
            let fields = try reader.fields(item, expected: "a controller mapping", allowed: ["cc", "channel", "from", "to", "min", "max"], required: ["cc", "to"])
            let controller = try reader.integer(fields["cc"]!, expected: "a controller number", in: 0...127)
            let channel = try fields["channel"].map { value throws(SessionError) in try reader.integer(value, expected: "a MIDI channel", in: 1...16) }
            let port = try fields["from"].map { value throws(SessionError) in try reader.text(value, expected: "a MIDI input port's name") }
            let target = try reader.text(fields["to"]!, expected: "NODE.PARAMETER or NODE.bypass")
            guard let dot = target.firstIndex(of: "."), dot != target.startIndex, target.index(after: dot) != target.endIndex else {
                throw reader.error("midi-map: to \(quoted(target)) is not NODE.PARAMETER or NODE.bypass", fields["to"]!)
            }
            let parameter = String(target[target.index(after: dot)...])
            let minimum = try fields["min"].map { value throws(SessionError) in try reader.text(value, expected: "a value") }
            let maximum = try fields["max"].map { value throws(SessionError) in try reader.text(value, expected: "a value") }
            result.append(MIDIMapSpec(
                controller: controller, channel: channel, port: port, node: String(target[..<dot]),
                parameter: parameter == "bypass" ? nil : parameter, minimum: minimum, maximum: maximum, location: reader.location(item)))
        }
        return result
    }

    /// `automation:` of a node: a lane a parameter, each a list of `TIME VALUE` points or
    /// `{ points: [...], step: true }`.
    static func automation(_ node: Node, _ reader: YAMLReader) throws(SessionError) -> [AutomationSpec] {
        var lanes: [AutomationSpec] = []
        for entry in try reader.entries(node, expected: "a mapping of parameters to automation lanes") {
            var list = entry.value
            var stepped = false
            if case .mapping = entry.value {
                let fields = try reader.fields(entry.value, expected: "an automation lane", allowed: ["points", "step"], required: ["points"])
                list = fields["points"]!
                if let step = fields["step"] { stepped = try reader.boolean(step, expected: "true or false") }
            }
            let items = try reader.items(list, expected: "a list of points, each `TIME VALUE` (as `1.5s -20`)")
            guard !items.isEmpty, items.count <= 100_000 else { throw reader.error("automation \(quoted(entry.key)): a lane has 1 to 100000 points", list) }
            var points: [(time: TransportTime, value: String)] = []
            for item in items {
                let text = try reader.text(item, expected: "a point `TIME VALUE`")
                guard let point = AutomationSpec.point(text) else {
                    throw reader.error("automation \(quoted(entry.key)): \(quoted(text)) is not a point: a position (frames, 1.5s, 3|1|0 or 00:00:01:12), a blank and a value", item)
                }
                points.append(point)
            }
            lanes.append(AutomationSpec(parameter: entry.key, points: points, stepped: stepped, location: reader.location(entry.value)))
        }
        return lanes
    }

    /// One item of `connections`: a mapping, `a -> b`, or a chain `a -> b -> c ...`, which
    /// is each neighbouring pair connected (every bus but the first source's and the last
    /// destination's is bus 0 unless written).
    static func connections(_ node: Node, _ reader: YAMLReader) throws(SessionError) -> [ConnectionSpec] {
        let location = reader.location(node)
        if case .mapping = node {
            let fields = try reader.fields(node, expected: "a connection", allowed: ["from", "to", "convert"], required: ["from", "to"])
            let from = try busReference(fields["from"]!, reader)
            let to = try busReference(fields["to"]!, reader)
            let convert = try fields["convert"].map { value throws(SessionError) in try reader.boolean(value, expected: "convert") } ?? false
            return [ConnectionSpec(from: from, to: to, convert: convert, style: .mapping, location: location)]
        }
        let text = try reader.text(node, expected: "a connection like \"tone1.0 -> out.0\"")
        let sides = text.split(separator: "->", omittingEmptySubsequences: false)
        guard sides.count >= 2 else {
            throw reader.error("expected a connection like \"tone1.0 -> out.0\" (source.bus -> destination.bus) or a chain like \"in.0 -> eq1 -> out\", found \(quoted(text))", node)
        }
        var references: [BusReference] = []
        for side in sides { references.append(try busReference(String(side), at: node, reader)) }
        return zip(references, references.dropFirst()).map { from, to in
            ConnectionSpec(from: from, to: to, style: .arrow, location: location)
        }
    }

    static func busReference(_ node: Node, _ reader: YAMLReader) throws(SessionError) -> BusReference {
        try busReference(try reader.text(node, expected: "node.bus"), at: node, reader)
    }

    /// `node`, `node.bus`, or a MIDI bus: `node.midi` (MIDI bus 0), `node.midiN`;
    /// surrounding spaces ignored.
    static func busReference(_ raw: String, at node: Node, _ reader: YAMLReader) throws(SessionError) -> BusReference {
        let text = raw.trimmingSpaces()
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, SessionName.isValid(String(parts[0])) else {
            throw reader.error("expected node.bus (a node name and an optional bus number), found \(quoted(text))", node)
        }
        guard parts.count == 2 else { return BusReference(node: String(parts[0])) }
        if parts[1].hasPrefix("midi") {
            let number = parts[1].dropFirst(4)
            if number.isEmpty { return BusReference(node: String(parts[0]), midi: true) }
            if case .success(let bus) = StrictScalar.integer(String(number)), bus >= 0, bus <= 1024 {
                return BusReference(node: String(parts[0]), bus: bus, midi: true)
            }
            throw reader.error("expected a MIDI bus like \(quoted(String(parts[0]) + ".midi")) or \(quoted(String(parts[0]) + ".midi1")), found \(quoted(text))", node)
        }
        switch StrictScalar.integer(String(parts[1])) {
        case .success(let bus) where bus >= 0 && bus <= 1024:
            return BusReference(node: String(parts[0]), bus: bus)
        default:
            throw reader.error("expected a bus number after \(quoted(String(parts[0]) + ".")), found \(quoted(String(parts[1])))", node)
        }
    }

    static func subgraph(_ entry: YAMLReader.Entry, _ reader: YAMLReader) throws(SessionError) -> SubgraphSpec {
        let name = try reader.name(entry.keyNode, what: "subgraph")
        let location = reader.location(entry.keyNode)
        let fields = try reader.fields(entry.value, expected: "subgraph \(quoted(name)) (nodes and connections, or file:)", allowed: bodyKeys + ["midi-inputs", "midi-outputs", "file"])
        if let file = fields["file"] {
            if let other = fields.entries.first(where: { $0.key != "file" }) {
                throw reader.error("subgraph \(quoted(name)) comes from a file; \(other.key): belongs in that file", other.keyNode)
            }
            var spec = SubgraphSpec(name: name, definition: .file(try reader.path(file, expected: "a session file path")), location: location)
            spec.positions["file"] = reader.location(file)
            return spec
        }
        var inline = try body(fields, location: reader.location(entry.value), reader)
        try midiPorts(fields, into: &inline, reader)
        return SubgraphSpec(name: name, definition: .inline(inline), location: location)
    }

    /// An inline subgraph's `midi-inputs:` and `midi-outputs:`: lists of port names.
    static func midiPorts(_ fields: YAMLReader.Fields, into body: inout GraphBody, _ reader: YAMLReader) throws(SessionError) {
        for (key, keyPath) in [("midi-inputs", \GraphBody.midiInputs), ("midi-outputs", \GraphBody.midiOutputs)] {
            guard let value = fields[key] else { continue }
            body.positions[key] = reader.location(value)
            for item in try reader.items(value, expected: "a list of MIDI port names") {
                let name = try reader.name(item, what: "MIDI port")
                guard !(body.midiInputs + body.midiOutputs).contains(name) else { throw reader.error("MIDI port \(quoted(name)) is named twice", item) }
                body[keyPath: keyPath].append(name)
            }
        }
    }

    static func jack(_ node: Node, _ reader: YAMLReader) throws(SessionError) -> JackSpec {
        let fields = try reader.fields(node, expected: "jack", allowed: ["client", "inputs", "outputs", "midi-inputs", "midi-outputs", "connect", "cpu-latency"])
        var spec = JackSpec(location: reader.location(node))
        for entry in fields.entries { spec.positions[entry.key] = reader.location(entry.value) }
        if let value = fields["client"] {
            let client = try reader.text(value, expected: "a JACK client name")
            guard client.utf8.count <= 63, !client.contains(":") else {
                throw reader.error("a JACK client name has at most 63 bytes and no colon, found \(quoted(client))", value)
            }
            spec.client = client
        }
        if let value = fields["cpu-latency"] {
            let policy = try reader.text(value, expected: "auto, hold or off")
            guard JackSpec.cpuLatencyPolicies.contains(policy) else {
                throw reader.error("cpu-latency is auto, hold or off, found \(quoted(policy))", value)
            }
            spec.cpuLatency = policy
        }
        let lists = [
            ("inputs", \JackSpec.inputs), ("outputs", \JackSpec.outputs),
            ("midi-inputs", \JackSpec.midiInputs), ("midi-outputs", \JackSpec.midiOutputs),
        ]
        for (key, keyPath) in lists {
            guard let value = fields[key] else { continue }
            var names: [String] = []
            for item in try reader.items(value, expected: "a list of port names") {
                let name = try reader.name(item, what: "port")
                if names.contains(name) || (spec.inputs + spec.outputs + spec.midiInputs).contains(name) {
                    throw reader.error("port \(quoted(name)) is named twice", item)
                }
                names.append(name)
            }
            spec[keyPath: keyPath] = names
        }
        if let value = fields["connect"] {
            for item in try reader.items(value, expected: "a list of port connections like \"system:capture_1 -> in_1\"") {
                let text = try reader.text(item, expected: "a port connection like \"system:capture_1 -> in_1\"")
                let sides = text.split(separator: "->", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
                guard sides.count == 2, !sides[0].isEmpty, !sides[1].isEmpty else {
                    throw reader.error("expected a port connection like \"system:capture_1 -> in_1\", found \(quoted(text))", item)
                }
                spec.connect.append(JackConnectionSpec(from: sides[0], to: sides[1], location: reader.location(item)))
            }
        }
        return spec
    }

    static func recorders(_ node: Node, _ reader: YAMLReader) throws(SessionError) -> [RecorderSpec] {
        var result: [RecorderSpec] = []
        for entry in try reader.entries(node, expected: "the recorders, a mapping of name to source and file") {
            let name = try reader.name(entry.keyNode, what: "recorder")
            let fields = try reader.fields(entry.value, expected: "recorder \(quoted(name))", allowed: ["source", "file", "format", "sample-type", "dither", "quality", "sample-rate", "channels"], required: ["source", "file"])
            let source = try busReference(fields["source"]!, reader)
            let file = try reader.path(fields["file"]!, expected: "a file to record to")
            var spec = RecorderSpec(name: name, source: source, file: file, location: reader.location(entry.keyNode))
            for field in fields.entries { spec.positions[field.key] = reader.location(field.value) }
            if let value = fields["format"] {
                let format = try reader.text(value, expected: "a file format").lowercased()
                guard RecorderSpec.formats.contains(format) else {
                    let hint = Suggestions.didYouMean(Suggestions.closest(to: format, among: RecorderSpec.formats))
                    throw reader.error("expected a file format (\(RecorderSpec.formats.joined(separator: ", "))), found \(quoted(format))\(hint)", value)
                }
                spec.format = format
            }
            if let value = fields["sample-type"] {
                let type = try reader.text(value, expected: "a sample type").lowercased()
                let types = SampleType.allCases.map(\.rawValue)
                guard types.contains(type) else {
                    let hint = Suggestions.didYouMean(Suggestions.closest(to: type, among: types))
                    throw reader.error("expected a sample type (\(types.joined(separator: ", "))), found \(quoted(type))\(hint)", value)
                }
                spec.sampleType = type
            }
            if let value = fields["dither"] {
                let text = try reader.text(value, expected: "true or false").lowercased()
                guard let on = ["true": true, "yes": true, "on": true, "false": false, "no": false, "off": false][text] else {
                    throw reader.error("expected true or false for dither, found \(quoted(text))", value)
                }
                spec.dither = on
            }
            if let value = fields["quality"] {
                let text = try reader.text(value, expected: "a Vorbis quality from 0 to 1")
                guard let quality = Double(text), quality.isFinite, (0...1).contains(quality) else {
                    throw reader.error("expected a Vorbis quality from 0 (smallest) to 1 (best), found \(quoted(text))", value)
                }
                spec.quality = quality
            }
            if let value = fields["sample-rate"] {
                spec.sampleRate = try reader.number(value, expected: "the file's sample rate in Hz", in: 1000...768_000)
            }
            if let value = fields["channels"] {
                spec.channels = try reader.integer(value, expected: "the file's channel count", in: 1...256)
            }
            result.append(spec)
        }
        return result
    }
}

extension RecorderSpec {
    public static let formats = ["wav", "aiff", "caf", "flac", "ogg"]
}

extension String {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars = scalars.dropFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
