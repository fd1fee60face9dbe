import TrellisCore

/// A named set of parameter values: one factory preset of a unit.
public struct ParameterPreset: Sendable, Hashable {
    public var name: String
    /// Parameter identifiers and the values the preset gives them.
    public var values: [String: Float]

    public init(name: String, values: [String: Float]) {
        self.name = name
        self.values = values
    }
}

/// The factory-preset mechanism any unit can use: list its presets by number and name,
/// and apply one by setting its parameters. A unit returns `presets` from
/// `factoryPresets` and calls `apply` from `applyFactoryPreset`.
public struct FactoryPresetList: Sendable {
    public let entries: [ParameterPreset]

    public init(_ entries: [ParameterPreset]) {
        self.entries = entries
    }

    /// The presets as Core Audio lists them: numbered from 0.
    public var presets: [Preset] {
        entries.enumerated().map { Preset(number: $0.offset, name: $0.element.name) }
    }

    /// Sets every parameter the preset names, ramped as ordinary changes are. Thread: control.
    public func apply(_ preset: Preset, to unit: AudioUnitBase) throws(AudioUnitError) {
        guard let entry = entries.indices.contains(preset.number) ? entries[preset.number]
                : entries.first(where: { $0.name.lowercased() == preset.name.lowercased() })
        else {
            throw .invalidPreset(preset.name, available: entries.map(\.name), unit: unit.name)
        }
        for (identifier, value) in entry.values.sorted(by: { $0.key < $1.key }) {
            try unit.setParameter(named: identifier, value)
        }
    }
}
