/// Everything `trellis info` shows about an LV2 plugin, read from its data without
/// instantiating it. Codable so the command line can print it as JSON.
public struct LV2PluginInfo: Codable, Sendable, Equatable {
    public var uri: String
    public var name: String
    /// The most specific LV2 class, e.g. `http://lv2plug.in/ns/lv2core#AmplifierPlugin`.
    public var classURI: String
    /// The class's readable name, e.g. "Amplifier".
    public var className: String
    public var author: String?
    public var authorEmail: String?
    public var authorHomepage: String?
    public var project: String?
    public var bundle: String
    public var library: String?
    public var ports: [LV2PortInfo]
    public var presets: [LV2PresetInfo]
    public var requiredFeatures: [String]
    public var optionalFeatures: [String]
    public var extensionData: [String]
    /// Index of the control output that reports latency in frames.
    public var latencyPort: Int?
    /// Controls the plugin exposes as properties (`patch:writable`, `patch:readable`),
    /// set and read with `patch:Set` and `patch:Get` messages on its control atom ports.
    public var properties: [LV2PropertyInfo] = []

    /// Required features Trellis does not provide; loading fails when not empty.
    public var missingFeatures: [String] {
        requiredFeatures.filter { !LV2HostFeatures.supported.contains($0) && !LV2URI.pluginProperties.contains($0) }
    }

    public var hasLatency: Bool { latencyPort != nil }
}

/// A `patch:writable` or `patch:readable` property of a plugin (an `lv2:Parameter`).
public struct LV2PropertyInfo: Codable, Sendable, Equatable {
    /// The property's value type, from its `rdfs:range`.
    public enum ValueType: String, Codable, Sendable {
        case int, long, float, double, bool, string, path, uri, other

        /// Numbers and booleans: the ones that are audio-unit parameters.
        public var isNumeric: Bool { [.int, .long, .float, .double, .bool].contains(self) }
    }

    public var uri: String
    public var label: String
    public var type: ValueType
    /// `patch:writable`; a property only `patch:readable` is the plugin's to change.
    public var isWritable: Bool
    public var minimum: Float?
    public var maximum: Float?
    /// The property's `lv2:default`.
    public var defaultValue: Float?
    public var unit: String?
}

public struct LV2PortInfo: Codable, Sendable, Equatable {
    public enum Direction: String, Codable, Sendable { case input, output }
    public enum Kind: String, Codable, Sendable { case audio, control, cv, atom, event, unknown }

    public var index: Int
    public var symbol: String
    public var name: String
    public var direction: Direction
    public var kind: Kind
    public var minimum: Float?
    public var maximum: Float?
    public var defaultValue: Float?
    /// The units URI, e.g. `http://lv2plug.in/ns/extensions/units#db`.
    public var unit: String?
    public var hints: [LV2PortHint]
    public var scalePoints: [LV2ScalePoint]
    /// The port group (pg:group) the port belongs to.
    public var group: String?
    /// lv2:designation, e.g. pg:left or lv2:control.
    public var designation: String?
    /// Atom ports: whether they carry MIDI events.
    public var supportsMIDI: Bool
    /// Atom ports: the smallest buffer the plugin accepts, in bytes.
    public var minimumBufferSize: Int?
    /// Class URIs the port declared, for ports of a kind Trellis does not know.
    public var types: [String]
    /// Atom ports: whether they carry `patch:Message`s (property changes).
    public var supportsPatch = false
    /// Atom inputs: whether they take `time:Position` (the host's transport and tempo).
    public var supportsTimePosition = false

    public func has(_ hint: LV2PortHint) -> Bool { hints.contains(hint) }
}

public enum LV2PortHint: String, Codable, Sendable, CaseIterable {
    case toggled, integer, enumeration, logarithmic, sampleRate, reportsLatency
    case connectionOptional, sideChain, notOnGUI, freeWheeling, enabled
}

public struct LV2ScalePoint: Codable, Sendable, Equatable {
    public var value: Float
    public var label: String
}

public struct LV2PresetInfo: Codable, Sendable, Equatable {
    public var uri: String
    public var label: String
}

extension LV2PluginInfo: CustomStringConvertible {
    /// A readable multi-line rendering, for `trellis info`.
    public var description: String {
        var lines = ["\(name) <\(uri)>", "  class:     \(className)"]
        if let author {
            let contact = [authorEmail, authorHomepage].compactMap { $0 }.joined(separator: ", ")
            lines.append("  author:    \(author)\(contact.isEmpty ? "" : " (\(contact))")")
        }
        if let project { lines.append("  project:   \(project)") }
        lines.append("  bundle:    \(bundle)")
        lines.append("  latency:   \(latencyPort.map { "reported by port \($0)" } ?? "none")")
        lines.append("  required features: \(requiredFeatures.isEmpty ? "none" : "")")
        for feature in requiredFeatures {
            lines.append("    \(feature)\(missingFeatures.contains(feature) ? "  (NOT PROVIDED)" : "")")
        }
        lines.append("  optional features: \(optionalFeatures.isEmpty ? "none" : "")")
        lines += optionalFeatures.map { "    \($0)" }
        lines.append("  ports:")
        for port in ports { lines += port.descriptionLines.map { "    " + $0 } }
        lines.append("  presets: \(presets.isEmpty ? "none" : "")")
        lines += presets.map { "    \($0.label) <\($0.uri)>" }
        return lines.joined(separator: "\n")
    }
}

extension LV2PortInfo {
    var descriptionLines: [String] {
        var head = "\(index) \(symbol) \"\(name)\": \(direction.rawValue) \(kind.rawValue)"
        if kind == .control {
            let number = { (value: Float?) in value.map { "\($0)" } ?? "?" }
            head += " \(number(minimum))...\(number(maximum)) default \(number(defaultValue))"
            if let unit { head += " [\(unit.split(separator: "#").last.map(String.init) ?? unit)]" }
        }
        if kind == .atom { head += supportsMIDI ? " (MIDI)" : "" }
        if let group { head += " group \(group.split(separator: "/").last.map(String.init) ?? group)" }
        if !hints.isEmpty { head += " {\(hints.map(\.rawValue).joined(separator: ", "))}" }
        return [head] + scalePoints.map { "    \($0.value) = \($0.label)" }
    }
}
