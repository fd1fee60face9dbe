import TrellisCore

/// Core Audio's iPod EQ: no sliders, only named curves (see `curves`), chosen with the
/// `preset` parameter or as factory presets by name or number. Changing curves glides
/// each band's gain, so it never clicks.
public final class IPodEQ: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.iPodEQ, manufacturer: Manufacturer.trellis)

    private static let presetList = FactoryPresetList(
        curves.enumerated().map { ParameterPreset(name: $0.element.name, values: ["preset": Float($0.offset)]) })

    /// The curves' gains laid out [curve][band], readable on the audio thread without ARC.
    private let gainTable: UnsafeMutablePointer<Float>
    private let tables = Arena(firstBlock: 2048)

    /// Thread: control.
    public init() {
        gainTable = tables.take(Self.curves.count * 10)
        for (curve, entry) in Self.curves.enumerated() {
            for band in 0..<10 { gainTable[curve * 10 + band] = entry.gains[band] }
        }
        super.init(description: Self.componentDescription, shortName: "ipod-eq", inputs: [2], outputs: [2])
        declareParameter(ParameterInfo(address: ParameterAddress(0), identifier: "preset", name: "Preset",
                                       unit: .indexed, range: 0...Float(Self.curves.count - 1), defaultValue: 0,
                                       flags: [.readable, .writable, .enumeration, .ramped], valueStrings: Self.curves.map(\.name)))
    }

    public override var factoryPresets: [Preset] { Self.presetList.presets }

    public override func applyFactoryPreset(_ preset: Preset) throws(AudioUnitError) {
        try Self.presetList.apply(preset, to: self)
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try matchingChannelCount(), rate = sampleRate, gainTable = gainTable
        kernelStorage = KernelStorage(render: { IPodEQKernel.render($0, $1) }, reset: { IPodEQKernel.reset($0) }) { memory in
            let engine = BiquadEQEngine(bandCapacity: 10, channelCount: channels, sampleRate: rate, in: memory)
            for band in 0..<10 {
                engine.setFrequency(band: band, Self.bandFrequencies[band], rampFrames: 0)
                engine.setQ(band: band, Self.bandQ, rampFrames: 0)
            }
            return IPodEQKernel(engine: engine, gainTable: gainTable, curveCount: Self.curves.count)
        }
    }
}
