import Glibc
import TrellisCore

/// Core Audio's N-band EQ: up to 16 RBJ-cookbook biquads in series, each with a filter
/// type, frequency, gain, Q and bypass, plus an overall gain.
///
/// Parameter ids follow `AUNBandEQ`: global gain 0, band b's bypass 1000+b, type 2000+b,
/// frequency 3000+b, gain 4000+b; its Q (where Core Audio has a bandwidth) is 5000+b.
public final class ParametricEQ: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.nBandEQ, manufacturer: Manufacturer.trellis)
    public static let maximumBands = 16


    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "eq", inputs: [2], outputs: [2])
        declareParameter(ParameterInfo(address: ParameterAddress(0), identifier: "gain", name: "Global Gain",
                                       unit: .decibels, range: -96...24, defaultValue: 0, flags: [.readable, .writable, .ramped]))
        for band in 0..<Self.maximumBands {
            let prefix = "band\(band).", label = "Band \(band) "
            let frequency = Float(31.25 * pow(2, Double(band) * 9 / Double(Self.maximumBands - 1)))
            declareParameter(ParameterInfo(address: ParameterAddress(UInt32(2000 + band)), identifier: prefix + "type", name: label + "Type",
                                           unit: .indexed, range: 0...Float(FilterType.allCases.count - 1), defaultValue: 0,
                                           flags: [.readable, .writable, .enumeration, .ramped], valueStrings: FilterType.allCases.map(\.name)))
            declareParameter(ParameterInfo(address: ParameterAddress(UInt32(3000 + band)), identifier: prefix + "freq", name: label + "Frequency",
                                           unit: .hertz, range: 10...22_000, defaultValue: frequency.rounded(),
                                           flags: [.readable, .writable, .logarithmic, .ramped]))
            declareParameter(ParameterInfo(address: ParameterAddress(UInt32(4000 + band)), identifier: prefix + "gain", name: label + "Gain",
                                           unit: .decibels, range: -96...24, defaultValue: 0, flags: [.readable, .writable, .ramped]))
            declareParameter(ParameterInfo(address: ParameterAddress(UInt32(5000 + band)), identifier: prefix + "q", name: label + "Q",
                                           unit: .generic, range: 0.05...40, defaultValue: 0.7071, flags: [.readable, .writable, .logarithmic, .ramped]))
            declareParameter(ParameterInfo(address: ParameterAddress(UInt32(1000 + band)), identifier: prefix + "bypass", name: label + "Bypass",
                                           unit: .boolean, range: 0...1, defaultValue: 0, flags: [.readable, .writable, .toggled, .ramped]))
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try matchingChannelCount(), rate = sampleRate
        kernelStorage = KernelStorage(render: { ParametricEQKernel.render($0, $1) }, reset: { ParametricEQKernel.reset($0) }) { memory in
            ParametricEQKernel(engine: BiquadEQEngine(bandCapacity: Self.maximumBands, channelCount: channels, sampleRate: rate, in: memory))
        }
    }
}
