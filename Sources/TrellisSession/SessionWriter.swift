/// Writes documents as session text, and saves them atomically.
public enum SessionWriter {
    /// The document as YAML, in a fixed layout and order. Thread: any.
    public static func text(_ document: SessionDocument) -> String {
        var out = Output()
        out.line("version: \(document.version)")
        let defaults = document.defaults
        if defaults.sampleRate != nil || defaults.blockSize != nil {
            out.line("defaults:")
            if let rate = defaults.sampleRate { out.line("  sample-rate: \(number(rate))") }
            if let size = defaults.blockSize { out.line("  block-size: \(size)") }
        }
        if let jack = document.jack { write(jack, &out) }
        write(document.graph, indent: "", &out)
        if !document.recorders.isEmpty {
            out.line("recorders:")
            for recorder in document.recorders {
                out.line("  \(recorder.name):")
                out.line("    source: \(YAMLText.scalar(recorder.source.description))")
                out.line("    file: \(YAMLText.scalar(recorder.file))")
                if let format = recorder.format { out.line("    format: \(format)") }
            }
        }
        return out.text
    }

    /// Writes `document` to `path` through a temporary file, fsync and rename, so the
    /// file at `path` is always either the old session or the new one. Thread: control.
    public static func save(_ document: SessionDocument, to path: String) throws(SessionWriteError) {
        try AtomicFile.write(Array(text(document).utf8), to: path)
    }

    private struct Output {
        var text = ""
        mutating func line(_ line: String) { text += line + "\n" }
    }

    private static func write(_ body: GraphBody, indent: String, _ out: inout Output) {
        if !body.nodes.isEmpty {
            out.line(indent + "nodes:")
            for node in body.nodes { write(node, indent: indent + "  ", &out) }
        }
        if !body.connections.isEmpty {
            out.line(indent + "connections:")
            for connection in body.connections {
                switch connection.style {
                case .arrow where !connection.convert:
                    out.line(indent + "  - \(YAMLText.scalar(connection.text))")
                default:
                    let convert = connection.convert ? ", convert: true" : ""
                    out.line(indent + "  - { from: \(connection.from), to: \(connection.to)\(convert) }")
                }
            }
        }
        if !body.subgraphs.isEmpty {
            out.line(indent + "subgraphs:")
            for subgraph in body.subgraphs {
                switch subgraph.definition {
                case .file(let file):
                    out.line(indent + "  \(subgraph.name):")
                    out.line(indent + "    file: \(YAMLText.scalar(file))")
                case .inline(let inner):
                    out.line(indent + "  \(subgraph.name):" + (inner.nodes.isEmpty && inner.connections.isEmpty && inner.subgraphs.isEmpty ? " {}" : ""))
                    write(inner, indent: indent + "    ", &out)
                }
            }
        }
    }

    private static func write(_ node: NodeSpec, indent: String, _ out: inout Output) {
        let inner = indent + "  "
        var fields: [String] = []
        switch node.source {
        case .unit(let key): fields.append("unit: \(YAMLText.scalar(key))")
        case .lv2(let uri): fields.append("lv2: \(YAMLText.scalar(uri))")
        case .subgraph(let name): fields.append("subgraph: \(name)")
        }
        for (key, value) in [("inputs", node.inputs), ("outputs", node.outputs), ("channels", node.channels),
                             ("input-channels", node.inputChannels), ("output-channels", node.outputChannels)] {
            if let value { fields.append("\(key): \(value)") }
        }
        if let file = node.file { fields.append("file: \(YAMLText.scalar(file))") }
        if let loops = node.loops { fields.append("loops: \(loops)") }
        if let bypass = node.bypass { fields.append("bypass: \(bypass)") }
        if let preset = node.preset { fields.append("preset: \(YAMLText.scalar(preset))") }
        if fields.count == 1, node.parameters.isEmpty, node.state == nil, case .unit = node.source {
            out.line(indent + "\(node.name): " + fields[0].dropFirst("unit: ".count))
            return
        }
        out.line(indent + "\(node.name):")
        for field in fields { out.line(inner + field) }
        if !node.parameters.isEmpty {
            out.line(inner + "parameters:")
            for parameter in node.parameters {
                out.line(inner + "  \(YAMLText.scalar(parameter.name)): \(YAMLText.scalar(parameter.value))")
            }
        }
        if let state = node.state { out.line(inner + "state: " + YAMLText.block(state, indent: inner + "  ")) }
    }

    private static func write(_ jack: JackSpec, _ out: inout Output) {
        if jack.client == nil, jack.inputs.isEmpty, jack.outputs.isEmpty, jack.midiInputs.isEmpty, jack.connect.isEmpty {
            out.line("jack: {}")
            return
        }
        out.line("jack:")
        if let client = jack.client { out.line("  client: \(YAMLText.scalar(client))") }
        for (key, ports) in [("inputs", jack.inputs), ("outputs", jack.outputs), ("midi-inputs", jack.midiInputs)] where !ports.isEmpty {
            out.line("  \(key): [\(ports.joined(separator: ", "))]")
        }
        if !jack.connect.isEmpty {
            out.line("  connect:")
            for connection in jack.connect { out.line("    - \(YAMLText.scalar(connection.from + " -> " + connection.to))") }
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}
