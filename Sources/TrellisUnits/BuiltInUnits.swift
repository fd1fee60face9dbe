import TrellisCore

/// The units Trellis ships, registered under Core Audio-style descriptions and short names.
public enum BuiltInUnits {
    /// The basic units: tone, generic output, graph input, gain, splitter, merger.
    public static let basic: [Component] = [
        Component(description: ToneGenerator.componentDescription, shortName: "tone", displayName: "Tone Generator") { ToneGenerator() },
        Component(description: GenericOutput.componentDescription, shortName: "output", displayName: "Generic Output") { GenericOutput() },
        Component(description: GraphInput.componentDescription, shortName: "input", displayName: "Graph Input") { GraphInput() },
        Component(description: Gain.componentDescription, shortName: "gain", displayName: "Gain") { Gain() },
        Component(description: Splitter.componentDescription, shortName: "splitter", displayName: "Splitter") { Splitter() },
        Component(description: Merger.componentDescription, shortName: "merger", displayName: "Merger") { Merger() },
    ]

    /// Registers every built-in unit: the basic ones and the DSP units. Thread: control.
    public static func register(into registry: ComponentRegistry) throws(RegistryError) {
        for component in basic { try registry.register(component) }
        try DSPUnits.register(into: registry)
    }

    /// A registry holding every built-in unit.
    public static func registry() -> ComponentRegistry {
        let registry = ComponentRegistry()
        do { try register(into: registry) } catch { preconditionFailure("built-in units collide: \(error)") }
        return registry
    }
}
