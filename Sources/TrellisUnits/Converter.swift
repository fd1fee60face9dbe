import TrellisCore

/// Core Audio's converter unit as it appears inside a graph, where every bus is
/// non-interleaved float at one sample rate: it maps channels (reorder, duplicate, mix
/// down, drop; see `ChannelMap`). Sample-rate and sample-type conversion happen at the
/// graph's edges with `SampleRateConverter` and `SampleTypeConversion`; the `rate`,
/// `quality` and `dither` parameters say how (a graph runs at one rate, so a converter's
/// rate is the rate of the whole render; see `ConverterEdge`).
public final class Converter: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.formatConverter, subtype: BuiltInSubtype.converter, manufacturer: Manufacturer.trellis)

    public static let rateParameter = ParameterAddress(0)
    public static let qualityParameter = ParameterAddress(1)
    public static let ditherParameter = ParameterAddress(2)

    private var map: ChannelMap?

    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "converter", inputs: [2], outputs: [2])
        declareParameter(ParameterInfo(
            address: Self.rateParameter, identifier: "rate", name: "Sample rate", unit: .hertz,
            range: 0...768_000, defaultValue: 0, flags: [.readable, .writable, .integer]))
        declareParameter(ParameterInfo(
            address: Self.qualityParameter, identifier: "quality", name: "Rate conversion quality", unit: .indexed,
            range: 0...Float(SampleRateConverter.Quality.allCases.count - 1),
            defaultValue: Float(SampleRateConverter.Quality.allCases.firstIndex(of: .high)!),
            flags: [.readable, .writable, .integer, .enumeration], valueStrings: SampleRateConverter.Quality.allCases.map(\.name)))
        declareParameter(ParameterInfo(
            address: Self.ditherParameter, identifier: "dither", name: "Dither", unit: .boolean,
            range: 0...1, defaultValue: 1, flags: [.readable, .writable, .toggled]))
    }

    /// The rate asked for (nil: the graph's own), the resampler's quality, and whether
    /// float made into 16- or 24-bit samples is dithered. Thread: control.
    public var edgeSettings: (rate: Double?, quality: SampleRateConverter.Quality, dither: Bool) {
        let rate = (try? parameterValue(Self.rateParameter)) ?? 0
        let index = Int((try? parameterValue(Self.qualityParameter)) ?? 3)
        let qualities = SampleRateConverter.Quality.allCases
        return (rate > 0 ? Double(rate) : nil, qualities[min(max(index, 0), qualities.count - 1)],
                ((try? parameterValue(Self.ditherParameter)) ?? 1) >= 0.5)
    }

    /// The map in force: the one set, or the standard map for the current channel counts.
    /// Thread: control.
    public var channelMap: ChannelMap {
        let inputs = (try? format(scope: .input, element: 0).channelCount) ?? 1
        let outputs = (try? format(scope: .output, element: 0).channelCount) ?? 1
        return map ?? .standard(inputs: inputs, outputs: outputs)
    }

    public override func customPropertyInfo(_ id: PropertyID, scope: Scope, element: Int) -> PropertyInfo? {
        guard id == .channelMap, scope == .global else { return nil }
        return PropertyInfo(isWritable: !isInitialized, kindName: "channel map")
    }

    public override func customProperty(_ id: PropertyID, scope: Scope, element: Int) throws(AudioUnitError) -> PropertyValue? {
        guard id == .channelMap, scope == .global else { return nil }
        return .channelMap(channelMap.entries)
    }

    public override func setCustomProperty(_ id: PropertyID, _ value: PropertyValue, scope: Scope, element: Int) throws(AudioUnitError) -> Bool {
        guard id == .channelMap else { return false }
        guard scope == .global else { throw .invalidScope(scope, property: id, unit: name) }
        guard !isInitialized else { throw .cannotChangeWhileInitialized(id, unit: name) }
        guard case .channelMap(let entries) = value else {
            throw .invalidPropertyValue(id, expected: "channel map", got: value.kindName, unit: name)
        }
        let inputs = try format(scope: .input, element: 0).channelCount
        if let bad = entries.first(where: { $0 < ChannelMap.mixAll || $0 >= inputs }) {
            throw .invalidPropertyValue(
                id, expected: "map of input channels 0...\(inputs - 1) (the input has \(inputs)), silence or mix", got: "\(bad)", unit: name)
        }
        map = ChannelMap(entries)
        return true
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let inputChannels = try format(scope: .input, element: 0).channelCount
        let outputChannels = try format(scope: .output, element: 0).channelCount
        let active = channelMap
        if let problem = active.validate(inputs: inputChannels, outputs: outputChannels) {
            throw .failedToInitialize("its channel map does not fit: \(problem)", unit: name)
        }
        kernelStorage = KernelStorage(render: { ConverterKernel.render($0, $1) }, reset: { ConverterKernel.reset($0) }) { memory in
            ConverterKernel(table: memory.copy(active.entries), outputChannels: outputChannels)
        }
    }
}
