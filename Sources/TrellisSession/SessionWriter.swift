import TrellisUnits

/// Writes documents as session text, and saves them atomically.
public enum SessionWriter {
    /// The first line of every saved session. To YAML, the start of a document whose root
    /// is a mapping (the standard map tag); to `sh` and `bash`, a redirection without a
    /// file, a syntax error that stops them before they run or create anything, should a
    /// saved session be run as a script (its `a -> b` lines would otherwise be redirects).
    public static let header = "--- !<tag:yaml.org,2002:map>"

    /// The document as YAML, in a fixed layout and order, with the comments it was
    /// read with beside the same entries. Thread: any.
    public static func text(_ document: SessionDocument) -> String {
        var out = CommentedOutput()
        out.line(header, "")
        out.line("version: \(document.version)", "version")
        let defaults = document.defaults
        if defaults.sampleRate != nil || defaults.blockSize != nil {
            out.line("defaults:", "defaults")
            if let rate = defaults.sampleRate { out.line("  sample-rate: \(number(rate))", "defaults/sample-rate") }
            if let size = defaults.blockSize { out.line("  block-size: \(size)", "defaults/block-size") }
        }
        if let threads = document.threads { out.line("threads: \(threads)", "threads") }
        if let isolate = document.isolate { out.line("isolate: \(isolate)", "isolate") }
        if let jack = document.jack { write(jack, &out) }
        if let transport = document.transport {
            out.line("transport:", "transport")
            if let tempo = transport.tempo { out.line("  tempo: \(number(tempo))", "transport/tempo") }
            if let meter = transport.meter { out.line("  meter: \(meter.beatsPerBar)/\(meter.beatUnit)", "transport/meter") }
            if let rolling = transport.rolling { out.line("  rolling: \(rolling)", "transport/rolling") }
            if let start = transport.start { out.line("  start: \(YAMLText.scalar(start.description))", "transport/start") }
            if let smpte = transport.smpte { out.line("  smpte: \(YAMLText.scalar(smpte.rawValue))", "transport/smpte") }
            if let source = transport.source { out.line("  source: \(source.rawValue)", "transport/source") }
        }
        write(document.graph, indent: "", path: "", &out)
        if !document.recorders.isEmpty {
            out.line("recorders:", "recorders")
            for recorder in document.recorders {
                let path = "recorders/" + recorder.name
                out.line("  \(recorder.name):", path)
                out.line("    source: \(YAMLText.scalar(recorder.source.description))", path + "/source")
                out.line("    file: \(YAMLText.scalar(recorder.file))", path + "/file")
                if let format = recorder.format { out.line("    format: \(format)", path + "/format") }
                if let type = recorder.sampleType { out.line("    sample-type: \(type)", path + "/sample-type") }
                if let dither = recorder.dither { out.line("    dither: \(dither)", path + "/dither") }
                if let quality = recorder.quality { out.line("    quality: \(quality)", path + "/quality") }
                if let rate = recorder.sampleRate { out.line("    sample-rate: \(number(rate))", path + "/sample-rate") }
                if let channels = recorder.channels { out.line("    channels: \(channels)", path + "/channels") }
            }
        }
        if !document.midiMap.isEmpty {
            out.line("midi-map:", "midi-map")
            for (index, mapping) in document.midiMap.enumerated() {
                var fields = ["cc: \(mapping.controller)"]
                if let channel = mapping.channel { fields.append("channel: \(channel)") }
                if let port = mapping.port { fields.append("from: \(YAMLText.scalar(port))") }
                fields.append("to: \(YAMLText.scalar(mapping.node + "." + (mapping.parameter ?? "bypass")))")
                if let minimum = mapping.minimum { fields.append("min: \(YAMLText.scalar(minimum))") }
                if let maximum = mapping.maximum { fields.append("max: \(YAMLText.scalar(maximum))") }
                out.line("  - { \(fields.joined(separator: ", ")) }", "midi-map/\(index)")
            }
        }
        return out.text(with: document.comments)
    }

    /// Writes `document` to `path` through a temporary file, fsync and rename, so the
    /// file at `path` is always either the old session or the new one. `mayReplace` is
    /// asked just before the rename (see `AtomicFile`). Thread: control.
    public static func save(_ document: SessionDocument, to path: String, mayReplace: () -> Bool = { true }) throws(SessionWriteError) {
        let document = document.relativizingFiles(to: SessionLoader.directoryOf(path))
        try AtomicFile.write(Array(text(document).utf8), to: path, mayReplace: mayReplace)
    }

    /// Writes a session's text as it is (a new session from a template), atomically as `save`.
    public static func save(text: String, to path: String) throws(SessionWriteError) {
        try AtomicFile.write(Array(text.utf8), to: path)
    }

    private static func write(_ body: GraphBody, indent: String, path: String, _ out: inout CommentedOutput) {
        let prefix = path.isEmpty ? "" : path + "/"
        for (key, ports) in [("midi-inputs", body.midiInputs), ("midi-outputs", body.midiOutputs)] where !ports.isEmpty {
            out.line(indent + "\(key): [\(ports.map(YAMLText.scalar).joined(separator: ", "))]", prefix + key)
        }
        if !body.nodes.isEmpty {
            out.line(indent + "nodes:", prefix + "nodes")
            for node in body.nodes { write(node, indent: indent + "  ", path: prefix + "nodes/" + node.name, &out) }
        }
        if !body.connections.isEmpty {
            out.line(indent + "connections:", prefix + "connections")
            var index = 0
            while index < body.connections.count {
                let connection = body.connections[index]
                index += 1
                switch connection.style {
                case .arrow where !connection.convert:
                    // A chain as written (its pairs share the item's place) is written as one again.
                    var text = connection.text, last = connection
                    while index < body.connections.count, case let next = body.connections[index], next.style == .arrow, !next.convert,
                          next.location == connection.location, "\(next.from)" == "\(last.to)" {
                        text += " -> \(next.to)"
                        last = next
                        index += 1
                    }
                    out.line(indent + "  - \(YAMLText.scalar(text))", prefix + "connections/" + SessionComments.itemPath(text))
                default:
                    let convert = connection.convert ? ", convert: true" : ""
                    let from = "\(connection.from)", to = "\(connection.to)"
                    out.line(indent + "  - { from: \(from), to: \(to)\(convert) }", prefix + "connections/" + SessionComments.connectionPath(from: from, to: to))
                }
            }
        }
        if !body.subgraphs.isEmpty {
            out.line(indent + "subgraphs:", prefix + "subgraphs")
            for subgraph in body.subgraphs {
                let path = prefix + "subgraphs/" + subgraph.name
                switch subgraph.definition {
                case .file(let file):
                    out.line(indent + "  \(subgraph.name):", path)
                    out.line(indent + "    file: \(YAMLText.scalar(file))", path + "/file")
                case .inline(let inner):
                    out.line(indent + "  \(subgraph.name):" + (inner.nodes.isEmpty && inner.connections.isEmpty && inner.subgraphs.isEmpty && inner.midiInputs.isEmpty && inner.midiOutputs.isEmpty ? " {}" : ""), path)
                    write(inner, indent: indent + "    ", path: path, &out)
                }
            }
        }
    }

    private static func write(_ node: NodeSpec, indent: String, path: String, _ out: inout CommentedOutput) {
        let inner = indent + "  "
        var fields: [(key: String, value: String)] = []
        switch node.source {
        case .unit(let key): fields.append(("unit", YAMLText.scalar(key)))
        case .lv2(let uri): fields.append(("lv2", YAMLText.scalar(uri)))
        case .subgraph(let name): fields.append(("subgraph", name))
        }
        for (key, value) in [("inputs", node.inputs), ("outputs", node.outputs), ("channels", node.channels),
                             ("input-channels", node.inputChannels), ("output-channels", node.outputChannels)] {
            if let value { fields.append((key, "\(value)")) }
        }
        if let map = node.channelMap { fields.append(("channel-map", YAMLText.scalar(ChannelMap(map).text))) }
        if let file = node.file { fields.append(("file", YAMLText.scalar(file))) }
        if let loops = node.loops { fields.append(("loops", "\(loops)")) }
        if let bypass = node.bypass { fields.append(("bypass", "\(bypass)")) }
        if let preset = node.preset { fields.append(("preset", YAMLText.scalar(preset))) }
        if let isolate = node.isolate { fields.append(("isolate", "\(isolate)")) }
        if let deadline = node.deadline { fields.append(("deadline", "\(deadline)")) }
        if let onFault = node.onFault { fields.append(("on-fault", onFault.rawValue)) }
        if let restart = node.restart { fields.append(("restart", restart ? "auto" : "manual")) }
        if fields.count == 1, node.parameters.isEmpty, node.state == nil, node.files.isEmpty, case .unit = node.source {
            out.line(indent + "\(node.name): " + fields[0].value, path)
            return
        }
        out.line(indent + "\(node.name):", path)
        for field in fields { out.line(inner + field.key + ": " + field.value, path + "/" + field.key) }
        if !node.automation.isEmpty {
            out.line(inner + "automation:", path + "/automation")
            for lane in node.automation {
                let points = "[" + lane.points.map { YAMLText.scalar("\($0.time) \($0.value)") }.joined(separator: ", ") + "]"
                let value = lane.stepped ? "{ points: \(points), step: true }" : points
                out.line(inner + "  \(YAMLText.scalar(lane.parameter)): \(value)", path + "/automation/" + lane.parameter)
            }
        }
        if !node.parameters.isEmpty {
            out.line(inner + "parameters:", path + "/parameters")
            for parameter in node.parameters {
                out.line(inner + "  \(YAMLText.scalar(parameter.name)): \(YAMLText.scalar(parameter.value))", path + "/parameters/" + parameter.name)
            }
        }
        if !node.files.isEmpty {
            out.line(inner + "files:", path + "/files")
            for file in node.files {
                out.line(inner + "  \(YAMLText.scalar(file.name)): \(YAMLText.scalar(file.value))", path + "/files/" + file.name)
            }
        }
        if let state = node.state { out.line(inner + "state: " + YAMLText.doubleQuoted(state), path + "/state") }
    }

    private static func write(_ jack: JackSpec, _ out: inout CommentedOutput) {
        if jack.client == nil, jack.inputs.isEmpty, jack.outputs.isEmpty, jack.midiInputs.isEmpty, jack.midiOutputs.isEmpty,
           jack.connect.isEmpty, jack.cpuLatency == nil {
            out.line("jack: {}", "jack")
            return
        }
        out.line("jack:", "jack")
        if let client = jack.client { out.line("  client: \(YAMLText.scalar(client))", "jack/client") }
        if let policy = jack.cpuLatency { out.line("  cpu-latency: \(policy)", "jack/cpu-latency") }
        for (key, ports) in [("inputs", jack.inputs), ("outputs", jack.outputs), ("midi-inputs", jack.midiInputs), ("midi-outputs", jack.midiOutputs)]
        where !ports.isEmpty {
            out.line("  \(key): [\(ports.map(YAMLText.scalar).joined(separator: ", "))]", "jack/" + key)
        }
        if !jack.connect.isEmpty {
            out.line("  connect:", "jack/connect")
            for connection in jack.connect {
                let text = connection.from + " -> " + connection.to
                out.line("    - \(YAMLText.scalar(text))", "jack/connect/" + SessionComments.itemPath(text))
            }
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}
