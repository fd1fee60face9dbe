import ArgumentParser
import Foundation
import TrellisControl
import TrellisCore
import TrellisLV2

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show a unit's buses, parameters (ranges and defaults) and properties.")

    @Argument(help: "A short name, a type:subtype:manufacturer triple, or an LV2 URI.")
    var unit: String

    @Flag(help: "Write JSON instead of text.")
    var json = false

    @Option(help: "The sample rate the unit is initialized at, for the latency it reports (Hz).")
    var sampleRate: Double = 48_000

    func run() throws {
        guard sampleRate.isFinite, sampleRate >= 1_000, sampleRate <= 768_000 else {
            throw CLIError("--sample-rate \(sampleRate): give a rate from 1000 to 768000 Hz")
        }
        let registry = try Units.registry()
        let component: Component
        do { component = try registry.component(named: unit) } catch {
            throw CLIError("\(error)")
        }
        let instance: any AudioUnit
        do { instance = try registry.instantiate(component) } catch { throw CLIError("\(error)") }
        let output = OwnStandardOutput.divertPlugins()
        // A plugin reports its latency once it runs, which initializing does.
        let failure = Self.initialize(instance, sampleRate: sampleRate)
        var info = UnitInfo(component: component, unit: instance)
        info.sampleRate = sampleRate
        info.initializationError = failure
        // Unknown, not 0, when it could not be initialized (as the text says).
        if failure != nil { info.latencyFrames = nil }
        output.write(Data(((json ? try JSONText.encode(info) : info.text) + "\n").utf8))
    }

    /// Initializes `unit` at `sampleRate`; the error's text when it cannot be.
    static func initialize(_ unit: any AudioUnit, sampleRate: Double) -> String? {
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

/// What `trellis info` reports about a unit.
struct UnitInfo: Codable {
    struct Bus: Codable {
        var scope: String
        var element: Int
        var channels: Int
        var sampleRate: Double
        var sampleType: String
        var sideChain: Bool?
    }

    /// A MIDI bus: its scope, index and name (an LV2 port's symbol).
    struct MIDIBus: Codable {
        var scope: String
        var element: Int
        var name: String
    }

    struct Parameter: Codable {
        var identifier: String
        var name: String
        var scope: String
        var element: Int
        var unit: String
        var minimum: Float
        var maximum: Float
        var defaultValue: Float
        var flags: [String]
        var values: [String]?
    }

    struct Property: Codable {
        var name: String
        var id: UInt32
        var scope: String
        var element: Int
        var writable: Bool
        var kind: String
        /// The value as `ctl property get` answers it, when the unit gives one.
        var value: String?
    }

    var triple: String
    var name: String
    var displayName: String
    var kind: String
    var origin: String
    var uri: String?
    /// Nil when the unit could not be initialized.
    var latencyFrames: Int?
    /// The rate the unit was initialized at, which its latency is in frames of.
    var sampleRate: Double?
    /// Why the unit could not be initialized, when it could not.
    var initializationError: String?
    var tailTime: Double
    var buses: [Bus]
    var midiBuses: [MIDIBus]
    var parameters: [Parameter]
    var properties: [Property]
    var presets: [String]
    /// The names the unit takes files under (`files:`); nil for a unit that takes none.
    var files: [FileSlot]?
    /// The plugin's own description, for LV2 units.
    var lv2: LV2PluginInfo?

    init(component: Component, unit: any AudioUnit) {
        triple = component.description.description
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
        parameters = unit.parameters.map { info in
            let names: [(ParameterFlags, String)] = [
                (.readable, "readable"), (.writable, "writable"), (.logarithmic, "logarithmic"), (.integer, "integer"),
                (.toggled, "toggled"), (.enumeration, "enumeration"), (.output, "output"), (.ramped, "ramped"),
            ]
            return Parameter(
                identifier: info.identifier, name: info.name, scope: info.address.scope.rawValue, element: info.address.element,
                unit: info.unit.rawValue, minimum: info.range.lowerBound, maximum: info.range.upperBound,
                defaultValue: info.defaultValue, flags: names.filter { info.flags.contains($0.0) }.map(\.1),
                values: info.valueStrings.isEmpty ? nil : info.valueStrings)
        }
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

    var text: String {
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
}
