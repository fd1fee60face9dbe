import TrellisCore
import TrellisUnits

/// The one way from a `NodeDescription` to a configured unit, for sessions, `ctl add`
/// and `trellis chain` alike: the unit found by name, its buses and channels, state,
/// preset, bypass, then its parameters (so parameters written win over a preset or a
/// state), every value read by the rules of `ParameterText`.
///
/// A mono unit asked for more channels runs once per channel (`MultiMonoUnit`), each
/// instance configured alike.
///
/// Thread: control. It makes units and sets their properties, which may load plugin
/// bundles and allocate; never call it on the audio thread.
public struct UnitFactory: Sendable {
    public let registry: ComponentRegistry
    /// Whether plugins run in processes of their own unless a node says otherwise (a
    /// session's `isolate: true`).
    public var isolatesPlugins = false

    public init(registry: ComponentRegistry, isolatesPlugins: Bool = false) {
        self.registry = registry
        self.isolatesPlugins = isolatesPlugins
    }

    /// A unit made and configured; a mono unit runs once per channel when the
    /// description asks for more than one channel or, saying nothing, `fedWidth` > 1.
    public func make(_ description: NodeDescription, fedWidth: Int? = nil) throws(UnitFactoryError) -> any AudioUnit {
        let unit = try instantiate(description.unit)
        try configure(unit, description)
        guard let width = description.channels ?? fedWidth, width > 1, runsPerChannel(unit, description) else { return unit }
        return try widen(unit, description, to: width)
    }

    /// The component a key names: a short name, a triple, `lv2:URI` or a URI.
    public func component(named key: String) throws(UnitFactoryError) -> Component {
        do { return try registry.component(named: key) } catch {
            switch error {
            case .unknownName(_, let suggestions): throw .unknownUnit(key, suggestions: suggestions)
            case .unknownDescription(_, let suggestions): throw .unknownUnit(key, suggestions: suggestions)
            case .instantiationFailed(_, let reason): throw .unitNotCreated(key, reason: reason)
            case .duplicateName, .duplicateDescription: throw .unknownUnit(key, suggestions: [])
            case .nameTooLong(let start, let bytes):
                throw .invalidSetting(key: "unit", text: start + "…", expected: "a unit name or plugin URI of at most \(ComponentRegistry.nameLimit) bytes",
                                      reason: "this one is \(bytes) bytes long")
            }
        }
    }

    /// A fresh, unconfigured unit of `component`; `key` names it in messages.
    public func instantiate(_ component: Component, key: String) throws(UnitFactoryError) -> any AudioUnit {
        do { return try registry.instantiate(component) } catch { throw .unitNotCreated(key, reason: error) }
    }

    /// A fresh, unconfigured unit of the component `key` names.
    public func instantiate(_ key: String) throws(UnitFactoryError) -> any AudioUnit {
        try instantiate(try component(named: key), key: key)
    }

    /// Applies everything but the unit's name to a fresh unit, in this order: bus
    /// counts, channels, channel map, state, preset, bypass, parameters. On a unit that will run
    /// once per channel (see `runsPerChannel`), `channels` is left to `widen`.
    public func configure(_ unit: any AudioUnit, _ description: NodeDescription) throws(UnitFactoryError) {
        func attempt(_ key: NodeDescription.Key, _ body: () throws(AudioUnitError) -> Void) throws(UnitFactoryError) {
            do { try body() } catch {
                switch error {
                case .invalidPreset(let name, let available, let unitName): throw .unknownPreset(name, available: available, unit: unitName)
                case .readOnlyProperty(.presentPreset, let unitName), .invalidProperty(.presentPreset, let unitName):
                    throw .unknownPreset(description.preset ?? "", available: [], unit: unitName)
                case .invalidState: throw .invalidState(error)
                default: throw .refused(key: key.rawValue, error)
                }
            }
        }
        if let count = description.inputs {
            try attempt(.inputs) { () throws(AudioUnitError) in try unit.setProperty(.elementCount, .int(count), scope: .input, element: 0) }
        }
        if let count = description.outputs {
            try attempt(.outputs) { () throws(AudioUnitError) in try unit.setProperty(.elementCount, .int(count), scope: .output, element: 0) }
        }
        let channels = runsPerChannel(unit, description) ? nil : description.channels
        for (scope, key, width) in [(Scope.input, NodeDescription.Key.inputChannels, description.inputChannels), (.output, .outputChannels, description.outputChannels)] {
            guard let count = width ?? channels else { continue }
            try attempt(width == nil ? .channels : key) { () throws(AudioUnitError) in
                for element in 0..<unit.elementCount(scope) {
                    var format = try unit.format(scope: scope, element: element)
                    format.channelCount = count
                    try unit.setFormat(format, scope: scope, element: element)
                }
            }
        }
        if let map = description.channelMap {
            try attempt(.channelMap) { () throws(AudioUnitError) in
                // A map says how wide the output is, unless the node says so itself.
                if description.outputChannels == nil, channels == nil, unit.elementCount(.output) > 0 {
                    var format = try unit.format(scope: .output, element: 0)
                    format.channelCount = map.count
                    try unit.setFormat(format, scope: .output, element: 0)
                }
                try unit.setProperty(.channelMap, .channelMap(map), scope: .global, element: 0)
            }
        }
        if let state = description.state {
            guard let stateful = unit as? any StatefulUnit else { throw .noState(unit: unit.name) }
            try attempt(.state) { () throws(AudioUnitError) in try stateful.restore(stateText: state) }
        }
        try give(description.files, to: unit)
        if let preset = description.preset, try !applyUserPreset(preset, to: unit) {
            try attempt(.preset) { () throws(AudioUnitError) in try unit.setProperty(.presentPreset, .string(preset), scope: .global, element: 0) }
        }
        if let bypass = description.bypass {
            try attempt(.bypass) { () throws(AudioUnitError) in try unit.setProperty(.bypassEffect, .bool(bypass), scope: .global, element: 0) }
        }
        try isolate(unit, description)
        for setting in description.parameters {
            try apply(setting, to: unit)
        }
    }

    /// Gives each file to the unit under its name; paths must be absolute by now
    /// (`NodeDescription.anchoringFiles`).
    private func give(_ files: [NodeDescription.Setting], to unit: any AudioUnit) throws(UnitFactoryError) {
        guard let first = files.first else { return }
        guard let taker = unit as? any FileTakingUnit else {
            throw .file(name: first.name, path: first.value, problem: "\(unit.name) takes no files (only LV2 plugins do)")
        }
        for file in files {
            guard file.value.hasPrefix("/") else { throw .file(name: file.name, path: file.value, problem: "the path is not absolute") }
            guard FileChecks.isRegularFile(file.value) else {
                throw .file(name: file.name, path: file.value, problem: FileChecks.problem(file.value))
            }
            do { try taker.setFile(file.value, for: file.name) } catch {
                throw .file(name: file.name, path: file.value, problem: "\(error)")
            }
        }
    }

    private func isolate(_ unit: any AudioUnit, _ description: NodeDescription) throws(UnitFactoryError) {
        let isolatable = unit as? any IsolatableUnit
        guard let isolation = description.isolation(isolatesByDefault: isolatesPlugins, unitCanIsolate: isolatable != nil) else {
            for (key, given) in [(NodeDescription.Key.deadline, description.deadline != nil), (.onFault, description.onFault != nil), (.restart, description.restart != nil)] where given {
                throw .invalidSetting(key: key.rawValue, text: "\(key.rawValue)", expected: "isolate: true beside it", reason: "only a node in a process of its own has it")
            }
            return
        }
        guard let isolatable else {
            throw .invalidSetting(key: "isolate", text: "true", expected: "false", reason: "\(unit.name) runs in Trellis' own process (only LV2 plugins run in one of their own)")
        }
        isolatable.isolation = isolation
    }

    /// A built-in unit's user preset (`BuiltInPresets`) of a name none of its own
    /// presets has; false when there is none, and the unit's own presets are asked.
    private func applyUserPreset(_ name: String, to unit: any AudioUnit) throws(UnitFactoryError) -> Bool {
        guard !(unit is UserPresetUnit) else { return false }
        if case .strings(let own)? = try? unit.property(.factoryPresets, scope: .global, element: 0),
           own.contains(where: { $0.lowercased() == name.lowercased() }) || Int(name) != nil && !own.isEmpty {
            return false
        }
        return try BuiltInPresets().apply(name, to: unit)
    }

    /// Sets one parameter from its text, by the parameter's kind.
    public func apply(_ setting: NodeDescription.Setting, to unit: any AudioUnit) throws(UnitFactoryError) {
        let info = try parameter(setting.name, of: unit)
        guard info.isWritable else { throw .readOnlyParameter(setting.name) }
        let value = try ParameterText.value(setting.value, for: info, named: setting.name)
        do { try unit.setParameter(info.address, value, rampFrames: 0) } catch {
            throw .refused(key: setting.name, error)
        }
    }

    /// The parameter `name` names on `unit`: by identifier (an LV2 symbol), then by
    /// display name, in any case.
    public func parameter(_ name: String, of unit: any AudioUnit) throws(UnitFactoryError) -> ParameterInfo {
        guard let info = ParameterText.find(name, in: unit) else {
            throw .unknownParameter(name, unit: unit.name, suggestions: Suggestions.closest(to: name, among: unit.parameters.map(\.identifier)))
        }
        return info
    }

    /// Whether `unit` (made from `description`) would run once per channel when given
    /// more than one: a mono unit that cannot be widened, whose node sets no
    /// per-direction width.
    public func runsPerChannel(_ unit: any AudioUnit, _ description: NodeDescription) -> Bool {
        description.inputChannels == nil && description.outputChannels == nil && description.channels != 1
            && !(unit is MultiMonoUnit) && MultiMonoUnit.canRun(unit)
    }

    /// Runs `first` (made and configured from `description`) and `width - 1` more
    /// instances, made and configured alike, one per channel.
    public func widen(_ first: any AudioUnit, _ description: NodeDescription, to width: Int) throws(UnitFactoryError) -> MultiMonoUnit {
        try MultiMonoUnit(width: width, first: first) { () throws(UnitFactoryError) in
            let another = try instantiate(description.unit)
            try configure(another, description)
            return another
        }
    }
}
