import TrellisCore

/// The Turtle of the bundle, written from the plugins' own units: `manifest.ttl` (which
/// plugins and presets, and where), a file per plugin (its ports, from the unit's
/// parameters) and a presets file per plugin that has presets. Thread: not audio.
public enum PluginTurtle {
    /// File name → text, for every file of the bundle but the binary.
    public static func files(binary: String, sampleRate: Double = 48_000) throws(AudioUnitError) -> [(name: String, text: String)] {
        var files: [(name: String, text: String)] = []
        var manifest = prefixes
        for plugin in ExportedPlugins.all {
            let unit = try plugin.makeUnit(sampleRate: sampleRate, maximumFrames: 4096)
            manifest += "\n<\(plugin.uri)>\n    a lv2:Plugin ;\n    lv2:binary <\(binary)> ;\n    rdfs:seeAlso <\(plugin.symbol).ttl> .\n"
            files.append((plugin.symbol + ".ttl", describe(plugin, ports: plugin.ports(of: unit))))
            guard !plugin.presets.isEmpty else { continue }
            for preset in plugin.presets {
                manifest += "\n<\(presetURI(plugin, preset.name))>\n    a pset:Preset ;\n    lv2:appliesTo <\(plugin.uri)> ;\n    rdfs:seeAlso <\(plugin.symbol).presets.ttl> .\n"
            }
            files.append((plugin.symbol + ".presets.ttl", presets(of: plugin)))
        }
        return [("manifest.ttl", manifest)] + files
    }

    static let prefixes = """
        @prefix atom: <http://lv2plug.in/ns/ext/atom#> .
        @prefix doap: <http://usefulinc.com/ns/doap#> .
        @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
        @prefix midi: <http://lv2plug.in/ns/ext/midi#> .
        @prefix patch: <http://lv2plug.in/ns/ext/patch#> .
        @prefix pg: <http://lv2plug.in/ns/ext/port-groups#> .
        @prefix pprops: <http://lv2plug.in/ns/ext/port-props#> .
        @prefix pset: <http://lv2plug.in/ns/ext/presets#> .
        @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        @prefix state: <http://lv2plug.in/ns/ext/state#> .
        @prefix units: <http://lv2plug.in/ns/extensions/units#> .
        @prefix urid: <http://lv2plug.in/ns/ext/urid#> .
        @prefix work: <http://lv2plug.in/ns/ext/worker#> .

        """

    static func presetURI(_ plugin: ExportedPlugin, _ name: String) -> String {
        plugin.uri + "#" + ExportedPort.symbol(for: name.lowercased())
    }

    static func describe(_ plugin: ExportedPlugin, ports: [ExportedPort]) -> String {
        var text = prefixes + """

            <\(plugin.uri)>
                a lv2:Plugin, lv2:\(plugin.lv2Class) ;
                doap:name \(TurtleText.quoted(plugin.name)) ;
                lv2:minorVersion 0 ;
                lv2:microVersion 1 ;
                lv2:optionalFeature lv2:hardRTCapable ;

            """
        if ports.contains(where: { $0.role == .events }) { text += "    lv2:requiredFeature urid:map ;\n" }
        if let content = plugin.content {
            // The content loads on the host's worker thread and travels in the plugin's state.
            text += "    lv2:optionalFeature work:schedule, state:mapPath, state:freePath ;\n"
            text += "    lv2:extensionData work:interface, state:interface ;\n"
            text += "    patch:writable <\(content.uri)> ;\n"
        }
        text += "    lv2:port"
        let groups = busGroups(plugin, ports: ports)
        text += " " + ports.enumerated().map { index, port in self.port(port, index: index, groups: groups) }.joined(separator: " , ") + " .\n"
        for group in groups.values.sorted(by: { $0.uri < $1.uri }) {
            text += "\n<\(group.uri)>\n    a pg:\(group.isInput ? "Input" : "Output")Group, pg:\(group.channels == 1 ? "Mono" : "Stereo")Group ;\n"
            text += "    lv2:symbol \(TurtleText.quoted(group.symbol)) ;\n    rdfs:label \(TurtleText.quoted(group.label)) .\n"
        }
        if let content = plugin.content {
            text += "\n<\(content.uri)>\n    a lv2:Parameter ;\n    rdfs:label \(TurtleText.quoted(content.label)) ;\n    rdfs:range atom:Path .\n"
        }
        return text
    }

    /// A port group per audio bus (pg:MonoGroup or pg:StereoGroup), so a host sees a
    /// mixer's inputs as the buses they are and knows left from right.
    struct BusGroup {
        var uri: String
        var symbol: String
        var label: String
        var isInput: Bool
        var channels: Int
    }

    static func busGroups(_ plugin: ExportedPlugin, ports: [ExportedPort]) -> [String: BusGroup] {
        var groups: [String: BusGroup] = [:]
        let inputBuses = Set(ports.compactMap { if case .audioInput(let bus, _) = $0.role { bus } else { nil } }).count
        let outputBuses = Set(ports.compactMap { if case .audioOutput(let bus, _) = $0.role { bus } else { nil } }).count
        for port in ports {
            let (isInput, bus): (Bool, Int)
            switch port.role {
            case .audioInput(let b, _): (isInput, bus) = (true, b)
            case .audioOutput(let b, _): (isInput, bus) = (false, b)
            default: continue
            }
            let symbol = (isInput ? "in" : "out") + "\(bus)"
            let many = (isInput ? inputBuses : outputBuses) > 1
            groups[symbol, default: BusGroup(
                uri: plugin.uri + "#" + symbol, symbol: symbol,
                label: (isInput ? "Input" : "Output") + (many ? " \(bus + 1)" : ""), isInput: isInput, channels: 0)].channels += 1
        }
        return groups.filter { $0.value.channels <= 2 }
    }

    static func port(_ port: ExportedPort, index: Int, groups: [String: BusGroup]) -> String {
        var lines: [String] = []
        func grouped(_ symbol: String, _ channel: Int) {
            guard let group = groups[symbol] else { return }
            lines.append("pg:group <\(group.uri)>")
            lines.append("lv2:designation " + (group.channels == 1 ? "pg:center" : channel == 0 ? "pg:left" : "pg:right"))
        }
        switch port.role {
        case .audioInput(let bus, let channel):
            lines.append("a lv2:AudioPort, lv2:InputPort")
            grouped("in\(bus)", channel)
        case .audioOutput(let bus, let channel):
            lines.append("a lv2:AudioPort, lv2:OutputPort")
            grouped("out\(bus)", channel)
        case .controlInput: lines.append("a lv2:ControlPort, lv2:InputPort")
        case .controlOutput, .latency: lines.append("a lv2:ControlPort, lv2:OutputPort")
        case .events:
            lines.append("a atom:AtomPort, lv2:InputPort")
            lines.append("atom:bufferType atom:Sequence")
            lines.append("atom:supports midi:MidiEvent, patch:Message")
            lines.append("lv2:designation lv2:control")
        }
        lines.append("lv2:index \(index)")
        lines.append("lv2:symbol \(TurtleText.quoted(port.symbol))")
        lines.append("lv2:name \(TurtleText.quoted(port.name))")
        if port.role == .latency {
            lines.append("lv2:designation lv2:latency")
            lines.append("lv2:portProperty lv2:reportsLatency, lv2:integer")
            lines.append("lv2:minimum 0")
            lines.append("lv2:maximum 192000")
        }
        if let parameter = port.parameter {
            lines.append("lv2:default \(number(parameter.defaultValue))")
            lines.append("lv2:minimum \(number(parameter.range.lowerBound))")
            lines.append("lv2:maximum \(number(parameter.range.upperBound))")
            var properties: [String] = []
            if parameter.flags.contains(.toggled) { properties.append("lv2:toggled") }
            if parameter.flags.contains(.integer) || parameter.flags.contains(.enumeration) || parameter.unit == .indexed {
                properties.append("lv2:integer")
            }
            if parameter.flags.contains(.enumeration) { properties.append("lv2:enumeration") }
            if parameter.flags.contains(.logarithmic) { properties.append("pprops:logarithmic") }
            if !properties.isEmpty { lines.append("lv2:portProperty " + properties.joined(separator: ", ")) }
            if let unit = unitURI(parameter.unit) { lines.append("units:unit \(unit)") }
            if parameter.flags.contains(.enumeration) {
                let points = parameter.valueStrings.enumerated().map { value, label in
                    "[ rdfs:label \(TurtleText.quoted(label)) ; rdf:value \(number(Float(value))) ]"
                }
                lines.append("lv2:scalePoint " + points.joined(separator: ", "))
            }
        }
        return "[\n        " + lines.joined(separator: " ;\n        ") + " ;\n    ]"
    }

    static func presets(of plugin: ExportedPlugin) -> String {
        var text = prefixes
        for preset in plugin.presets {
            let values = preset.values.sorted { $0.key < $1.key }.map { identifier, value in
                "[ lv2:symbol \(TurtleText.quoted(ExportedPort.symbol(for: identifier))) ; pset:value \(number(value)) ]"
            }
            text += "\n<\(presetURI(plugin, preset.name))>\n    a pset:Preset ;\n    lv2:appliesTo <\(plugin.uri)> ;\n"
            text += "    rdfs:label \(TurtleText.quoted(preset.name)) ;\n    lv2:port " + values.joined(separator: ", ") + " .\n"
        }
        return text
    }

    static func unitURI(_ unit: ParameterUnit) -> String? {
        switch unit {
        case .decibels: "units:db"
        case .hertz: "units:hz"
        case .milliseconds: "units:ms"
        case .seconds: "units:s"
        case .percent: "units:pc"
        case .degrees: "units:degree"
        case .meters: "units:m"
        case .cents: "units:cent"
        case .semitones: "units:semitone12TET"
        case .midiNoteNumber: "units:midiNote"
        case .sampleFrames: "units:frame"
        case .linearGain: "units:coef"
        default: nil
        }
    }

    /// A Turtle double that reads back as the same Float.
    static func number(_ value: Float) -> String {
        let text = "\(value)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }
}
