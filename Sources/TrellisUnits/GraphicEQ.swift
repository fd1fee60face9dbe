import TrellisCore

/// Core Audio's graphic EQ: 10 octave bands or 31 third-octave bands at the ISO centre
/// frequencies, each a peaking biquad whose gain is the band's slider.
///
/// All 31 gain parameters always exist (ids 0-30, `band0.gain`...); in 10-band mode the
/// first ten are the octave bands and the rest are held flat. Switching modes glides the
/// bands to their new centres. Its factory presets are the iPod EQ curves.
public final class GraphicEQ: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.graphicEQ, manufacturer: Manufacturer.trellis)

    /// ISO 266 octave centres.
    public static let octaveCentres: [Float] = [31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]
    /// ISO 266 third-octave centres.
    public static let thirdOctaveCentres: [Float] = [
        20, 25, 31.5, 40, 50, 63, 80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800,
        1000, 1250, 1600, 2000, 2500, 3150, 4000, 5000, 6300, 8000, 10000, 12500, 16000, 20000,
    ]
    /// Q of a peaking band one octave wide, and one third of an octave wide.
    public static let octaveQ: Float = Float(2).squareRoot()
    public static let thirdOctaveQ: Float = 1.122462048 / 0.259921050

    public static let bandCountID: UInt32 = 10000


    private static let presetList = FactoryPresetList(IPodEQ.curves.map { curve in
        var values: [String: Float] = ["bands": 0]
        for (band, gain) in curve.gains.enumerated() { values["band\(band).gain"] = gain }
        for band in 10..<31 { values["band\(band).gain"] = 0 }
        return ParameterPreset(name: curve.name, values: values)
    })

    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "graphic-eq", inputs: [2], outputs: [2])
        declareParameter(ParameterInfo(address: ParameterAddress(Self.bandCountID), identifier: "bands", name: "Number of Bands",
                                       unit: .indexed, range: 0...1, defaultValue: 0,
                                       flags: [.readable, .writable, .enumeration, .ramped], valueStrings: ["10", "31"]))
        for band in 0..<31 {
            let centre = Self.thirdOctaveCentres[band]
            let label = band < 10 ? "\(format(Self.octaveCentres[band])) Hz (10) / \(format(centre)) Hz (31)" : "\(format(centre)) Hz"
            declareParameter(ParameterInfo(address: ParameterAddress(UInt32(band)), identifier: "band\(band).gain", name: label,
                                           unit: .decibels, range: -20...20, defaultValue: 0, flags: [.readable, .writable, .ramped]))
        }
    }

    private func format(_ value: Float) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    public override var factoryPresets: [Preset] { Self.presetList.presets }

    public override func applyFactoryPreset(_ preset: Preset) throws(AudioUnitError) {
        try Self.presetList.apply(preset, to: self)
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try matchingChannelCount(), rate = sampleRate
        let sliders = (1...31).map { values[$0] }, isThirdOctave = values[0] >= 0.5
        let centres = (0..<31).map { $0 < 10 ? Self.octaveCentres[$0] : Self.thirdOctaveCentres[$0] } + Self.thirdOctaveCentres.prefix(31)
        kernelStorage = KernelStorage(render: { GraphicEQKernel.render($0, $1) }, reset: { GraphicEQKernel.reset($0) }) { memory in
            var kernel = GraphicEQKernel(
                engine: BiquadEQEngine(bandCapacity: 31, channelCount: channels, sampleRate: rate, in: memory), isThirdOctave: isThirdOctave,
                sliders: memory.copy(sliders), centres: UnsafePointer(memory.copy(centres)), octaveQ: Self.octaveQ, thirdOctaveQ: Self.thirdOctaveQ)
            kernel.layBands(rampFrames: 0)
            return kernel
        }
    }
}
