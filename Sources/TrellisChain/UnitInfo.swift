import TrellisCore
import TrellisLV2

/// What `trellis info` reports about a unit.
public struct UnitInfo: Codable {
    public struct Bus: Codable {
        public var scope: String
        public var element: Int
        public var channels: Int
        public var sampleRate: Double
        public var sampleType: String
        public var sideChain: Bool?
    }

    /// A MIDI bus: its scope, index and name (an LV2 port's symbol).
    public struct MIDIBus: Codable {
        public var scope: String
        public var element: Int
        public var name: String
    }

    public struct Parameter: Codable {
        public var identifier: String
        public var name: String
        public var scope: String
        public var element: Int
        public var unit: String
        public var minimum: Float
        public var maximum: Float
        public var defaultValue: Float
        public var flags: [String]
        public var values: [String]?
        /// The value now, where asked for (a chain's parameters through the C interface).
        public var value: Float?

        public init(_ info: ParameterInfo, value: Float? = nil) {
            let names: [(ParameterFlags, String)] = [
                (.readable, "readable"), (.writable, "writable"), (.logarithmic, "logarithmic"), (.integer, "integer"),
                (.toggled, "toggled"), (.enumeration, "enumeration"), (.output, "output"), (.ramped, "ramped"),
            ]
            identifier = info.identifier
            name = info.name
            scope = info.address.scope.rawValue
            element = info.address.element
            unit = info.unit.rawValue
            minimum = info.range.lowerBound
            maximum = info.range.upperBound
            defaultValue = info.defaultValue
            flags = names.filter { info.flags.contains($0.0) }.map(\.1)
            values = info.valueStrings.isEmpty ? nil : info.valueStrings
            self.value = value
        }
    }

    public struct Property: Codable {
        public var name: String
        public var id: UInt32
        public var scope: String
        public var element: Int
        public var writable: Bool
        public var kind: String
        /// The value as `ctl property get` answers it, when the unit gives one.
        public var value: String?
    }

    public var triple: String
    public var name: String
    public var displayName: String
    public var kind: String
    public var origin: String
    public var uri: String?
    /// Nil when the unit could not be initialized.
    public var latencyFrames: Int?
    /// The rate the unit was initialized at, which its latency is in frames of.
    public var sampleRate: Double?
    /// Why the unit could not be initialized, when it could not.
    public var initializationError: String?
    public var tailTime: Double
    public var buses: [Bus]
    public var midiBuses: [MIDIBus]
    public var parameters: [Parameter]
    public var properties: [Property]
    public var presets: [String]
    /// The names the unit takes files under (`files:`); nil for a unit that takes none.
    public var files: [FileSlot]?
    /// The plugin's own description, for LV2 units.
    public var lv2: LV2PluginInfo?

    /// What `trellis info NAME` says: the unit `name` names, made and initialized at
    /// `sampleRate` (its latency is reported once it runs).
    public init(named name: String, registry: ComponentRegistry, sampleRate: Double) throws(CommandError) {
        let component: Component
        do { component = try registry.component(named: name) } catch { throw CommandError("\(error)", kind: .unit) }
        let instance: any AudioUnit
        do { instance = try registry.instantiate(component) } catch { throw CommandError("\(error)", kind: .unit) }
        let failure = Self.initialize(instance, sampleRate: sampleRate)
        self.init(component: component, unit: instance)
        self.sampleRate = sampleRate
        initializationError = failure
        // Unknown, not 0, when it could not be initialized (as the text says).
        if failure != nil { latencyFrames = nil }
    }

    public init(component: Component, unit: any AudioUnit) {
        triple = component.componentDescription.description
        name = component.shortName
        displayName = component.displayName
        kind = component.kind
        origin = component.origin.rawValue
        uri = component.uri
        latencyFrames = unit.latencyFrames
        tailTime = unit.tailTime
        buses = [Scope.input, .output].flatMap { scope in
            let sideChains = (unit as? LV2PluginUnit)?.sideChainBuses(scope) ?? []
            return (0..<unit.elementCount(scope)).compactMap { element in
                (try? unit.format(scope: scope, element: element)).map {
                    Bus(scope: scope.rawValue, element: element, channels: $0.channelCount, sampleRate: $0.sampleRate,
                        sampleType: $0.sampleType.rawValue, sideChain: element < sideChains.count && sideChains[element] ? true : nil)
                }
            }
        }
        midiBuses = [Scope.input, .output].flatMap { scope in
            unit.midiBusNames(scope).enumerated().map { MIDIBus(scope: scope.rawValue, element: $0.offset, name: $0.element) }
        }
        parameters = unit.parameters.map { Parameter($0) }
        properties = PropertyText.known.flatMap { id in
            (id == .parameterList ? [Scope.global] : Scope.allCases).flatMap { scope in
                PropertyText.elements(of: id, scope: scope, on: unit).compactMap { element in
                    (try? unit.propertyInfo(id, scope: scope, element: element)).map {
                        let value = id == .parameterList ? nil : (try? unit.property(id, scope: scope, element: element)).map(PropertyText.text)
                        return Property(name: PropertyText.keyword(id), id: id.rawValue, scope: scope.rawValue, element: element,
                                        writable: $0.isWritable, kind: $0.kindName, value: value)
                    }
                }
            }
        }
        lv2 = (unit as? LV2PluginUnit)?.info
        files = (unit as? any FileTakingUnit)?.fileSlots
        if case .strings(let names)? = try? unit.property(.factoryPresets, scope: .global, element: 0) {
            presets = names
        } else {
            presets = []
        }
    }

    public var text: String {
        var lines = ["\(displayName) — \(name) (\(triple)), \(kind), \(origin)"]
        if let uri { lines.append("uri: \(uri)") }
        if let initializationError {
            lines.append("latency: unknown, the unit cannot be initialized: \(initializationError)")
        } else {
            lines.append("latency: \(latencyFrames ?? 0) frames" + (sampleRate.map { " at \(Int($0)) Hz" } ?? "") + ", tail: \(PropertyText.number(tailTime)) s")
        }
        lines.append("buses:")
        for bus in buses {
            lines.append("  \(bus.scope) \(bus.element): \(bus.channels) ch, \(bus.sampleType)" + (bus.sideChain == true ? ", side-chain" : ""))
        }
        for bus in midiBuses { lines.append("  \(bus.scope) \(bus.element): MIDI (\(bus.name))") }
        lines.append("parameters:")
        for p in parameters {
            let place = p.scope == "global" ? "" : " [\(p.scope) \(p.element)]"
            let values = p.values.map { " {\($0.joined(separator: ", "))}" } ?? ""
            lines.append("  \(p.identifier)\(place): \(p.name), \(p.minimum)...\(p.maximum) \(p.unit), default \(p.defaultValue)\(values) (\(p.flags.joined(separator: ", ")))")
        }
        lines.append("properties:")
        for p in properties {
            let place = p.scope == "global" ? "" : " [\(p.scope) \(p.element)]"
            let value = p.value.map { " = \($0.isEmpty ? "(none)" : $0)" } ?? ""
            lines.append("  \(p.name)\(place)\(value) (\(p.kind)\(p.writable ? ", writable" : ""))")
        }
        if !presets.isEmpty { lines.append("presets: \(presets.joined(separator: ", "))") }
        if let files {
            lines.append(files.isEmpty ? "files: none declared (a state key written as a URI takes one)" : "files:")
            for file in files { lines.append("  \(file.name): \(file.label) <\(file.uri)>") }
        }
        if let lv2 {
            lines.append("")
            lines.append(lv2.description)
        }
        return lines.joined(separator: "\n")
    }

    /// Initializes `unit` at `sampleRate`; the error's text when it cannot be.
    public static func initialize(_ unit: any AudioUnit, sampleRate: Double) -> String? {
        do {
            for scope in [Scope.input, .output] {
                for element in 0..<unit.elementCount(scope) {
                    var format = try unit.format(scope: scope, element: element)
                    format.sampleRate = sampleRate
                    try unit.setFormat(format, scope: scope, element: element)
                }
            }
            try unit.initialize()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
