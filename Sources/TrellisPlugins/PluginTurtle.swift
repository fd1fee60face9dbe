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
        @prefix doap: <http://usefulinc.com/ns/doap#> .
        @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
        @prefix pprops: <http://lv2plug.in/ns/ext/port-props#> .
        @prefix pset: <http://lv2plug.in/ns/ext/presets#> .
        @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        @prefix units: <http://lv2plug.in/ns/extensions/units#> .

        """

    static func presetURI(_ plugin: ExportedPlugin, _ name: String) -> String {
        plugin.uri + "#" + ExportedPort.symbol(for: name.lowercased())
    }

    static func describe(_ plugin: ExportedPlugin, ports: [ExportedPort]) -> String {
        var text = prefixes + """

            <\(plugin.uri)>
                a lv2:Plugin, lv2:\(plugin.lv2Class) ;
                doap:name \(quoted(plugin.name)) ;
                lv2:minorVersion 0 ;
                lv2:microVersion 1 ;
                lv2:optionalFeature lv2:hardRTCapable ;
                lv2:port
            """
        text += ports.enumerated().map { index, port in self.port(port, index: index) }.joined(separator: " , ") + " .\n"
        return text
    }

    static func port(_ port: ExportedPort, index: Int) -> String {
        var lines: [String] = []
        switch port.role {
        case .audioInput: lines.append("a lv2:AudioPort, lv2:InputPort")
        case .audioOutput: lines.append("a lv2:AudioPort, lv2:OutputPort")
        case .controlInput: lines.append("a lv2:ControlPort, lv2:InputPort")
        case .controlOutput, .latency: lines.append("a lv2:ControlPort, lv2:OutputPort")
        }
        lines.append("lv2:index \(index)")
        lines.append("lv2:symbol \(quoted(port.symbol))")
        lines.append("lv2:name \(quoted(port.name))")
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
                    "[ rdfs:label \(quoted(label)) ; rdf:value \(number(Float(value))) ]"
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
                "[ lv2:symbol \(quoted(ExportedPort.symbol(for: identifier))) ; pset:value \(number(value)) ]"
            }
            text += "\n<\(presetURI(plugin, preset.name))>\n    a pset:Preset ;\n    lv2:appliesTo <\(plugin.uri)> ;\n"
            text += "    rdfs:label \(quoted(preset.name)) ;\n    lv2:port " + values.joined(separator: ", ") + " .\n"
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

    static func quoted(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"" + escaped + "\""
    }
}
