import TrellisCore

/// The DSP units of issue 4: mixers, converter, EQs, limiter and delay.
public enum DSPUnits {
    /// Every DSP unit's component, in listing order.
    public static let components: [Component] = [
        Component(description: MultichannelMixer.componentDescription, shortName: "mixer", displayName: "Multichannel Mixer") { MultichannelMixer() },
        Component(description: Mixer3D.componentDescription, shortName: "mixer3d", displayName: "3D Mixer") { Mixer3D() },
        Component(description: Converter.componentDescription, shortName: "converter", displayName: "Converter") { Converter() },
        Component(description: ParametricEQ.componentDescription, shortName: "eq", displayName: "N-Band EQ") { ParametricEQ() },
        Component(description: GraphicEQ.componentDescription, shortName: "graphic-eq", displayName: "Graphic EQ") { GraphicEQ() },
        Component(description: IPodEQ.componentDescription, shortName: "ipod-eq", displayName: "iPod EQ") { IPodEQ() },
        Component(description: PeakLimiter.componentDescription, shortName: "limiter", displayName: "Peak Limiter") { PeakLimiter() },
        Component(description: Delay.componentDescription, shortName: "delay", displayName: "Delay") { Delay() },
        Component(description: DynamicsProcessor.componentDescription, shortName: "compressor", displayName: "Dynamics Processor") { DynamicsProcessor() },
        Component(description: Reverb.componentDescription, shortName: "reverb", displayName: "Reverb") { Reverb() },
        Component(description: Distortion.componentDescription, shortName: "distortion", displayName: "Distortion") { Distortion() },
    ]

    /// Adds every DSP unit to `registry`. Thread: control.
    public static func register(into registry: ComponentRegistry) throws(RegistryError) {
        for component in components { try registry.register(component) }
    }
}
