import TrellisCore
import TrellisSampler
import TrellisTimePitch
import TrellisUnits

extension PeakLimiter: LatencyReporting {}
extension Distortion: LatencyReporting {}
extension TimePitch: LatencyReporting {}

/// Every plugin the LV2 bundle holds, in the order `lv2_descriptor` numbers them.
public enum ExportedPlugins {
    public static let all: [ExportedPlugin] = {
        var plugins: [ExportedPlugin] = []
        for (suffix, channels) in [("mono", 1), ("stereo", 2)] {
            let label = channels == 1 ? "Mono" : "Stereo"
            plugins.append(ExportedPlugin(symbol: "gain-\(suffix)", name: "Trellis Gain (\(label))", lv2Class: "AmplifierPlugin") {
                Gain(channelCount: channels)
            })
            for bands in [4, 8] {
                var fixed: [String: Float] = [:]
                for band in bands..<ParametricEQ.maximumBands { fixed["band\(band).bypass"] = 1 }
                plugins.append(ExportedPlugin(
                    symbol: "eq\(bands)-\(suffix)", name: "Trellis \(bands)-Band Parametric EQ (\(label))", lv2Class: "ParaEQPlugin",
                    fixed: fixed, shown: { info in !info.identifier.hasPrefix("band") || bandNumber(info.identifier) < bands }
                ) { width(ParametricEQ(), channels) })
            }
            plugins.append(ExportedPlugin(
                symbol: "geq10-\(suffix)", name: "Trellis 10-Band Graphic EQ (\(label))", lv2Class: "MultiEQPlugin",
                fixed: ["bands": 0], shown: { bandNumber($0.identifier) < 10 },
                names: Dictionary(uniqueKeysWithValues: GraphicEQ.octaveCentres.enumerated().map { ("band\($0.offset).gain", "\(hertz($0.element)) Hz") })
            ) { width(GraphicEQ(), channels) })
            plugins.append(ExportedPlugin(
                symbol: "geq31-\(suffix)", name: "Trellis 31-Band Graphic EQ (\(label))", lv2Class: "MultiEQPlugin",
                fixed: ["bands": 1],
                names: Dictionary(uniqueKeysWithValues: GraphicEQ.thirdOctaveCentres.enumerated().map { ("band\($0.offset).gain", "\(hertz($0.element)) Hz") })
            ) { width(GraphicEQ(), channels) })
            plugins.append(ExportedPlugin(
                symbol: "ipod-eq-\(suffix)", name: "Trellis iPod EQ (\(label))", lv2Class: "EQPlugin",
                presets: IPodEQ.curves.enumerated().map { (name: $0.element.name, values: ["preset": Float($0.offset)]) }
            ) { width(IPodEQ(), channels) })
            plugins.append(ExportedPlugin(symbol: "limiter-\(suffix)", name: "Trellis Peak Limiter (\(label))", lv2Class: "LimiterPlugin") {
                width(PeakLimiter(), channels)
            })
            plugins.append(ExportedPlugin(symbol: "delay-\(suffix)", name: "Trellis Delay (\(label))", lv2Class: "DelayPlugin") {
                width(Delay(), channels)
            })
            plugins.append(ExportedPlugin(
                symbol: "compressor-\(suffix)", name: "Trellis Dynamics Processor (\(label))", lv2Class: "CompressorPlugin",
                fixed: ["sidechain": 0]
            ) { width(DynamicsProcessor(keyInput: false), channels) })
            plugins.append(ExportedPlugin(
                symbol: "reverb-\(suffix)", name: "Trellis Reverb (\(label))", lv2Class: "ReverbPlugin",
                presets: Reverb.presets.map {
                    (name: $0.name, values: ["decayTime": $0.decayTime, "damping": $0.damping, "size": $0.size, "preDelay": $0.preDelay])
                }
            ) { width(Reverb(), channels) })
            plugins.append(ExportedPlugin(
                symbol: "distortion-\(suffix)", name: "Trellis Distortion (\(label))", lv2Class: "DistortionPlugin",
                presets: Distortion.presets.map {
                    (name: $0.name, values: ["curve": Float($0.curve.rawValue), "drive": $0.drive, "tone": $0.tone,
                                             "preGain": $0.preGain, "wetDryMix": $0.wetDryMix])
                }
            ) { width(Distortion(), channels) })
            // A pitch shifter: an LV2 plugin gives out a frame for every frame it takes,
            // so the rate stays 1 (the varispeed unit, a rate and nothing else, has no plugin).
            plugins.append(ExportedPlugin(
                symbol: "timepitch-\(suffix)", name: "Trellis Time Pitch (\(label))", lv2Class: "PitchPlugin", fixed: ["rate": 1]
            ) {
                // A host may run it faster than real time (lv2apply does).
                let unit = TimePitch()
                unit.movesPitchInPlace = true
                return width(unit, channels)
            })
        }
        plugins.append(ExportedPlugin(
            symbol: "sampler", name: "Trellis Sampler", lv2Class: "InstrumentPlugin",
            content: .init(uri: ExportedPlugin.uriBase + "sampler#bank", label: "Bank")
        ) { Sampler() })
        for inputs in [2, 4, 8] {
            plugins.append(ExportedPlugin(symbol: "mixer-\(inputs)", name: "Trellis Mixer (\(inputs) Stereo Inputs)", lv2Class: "MixerPlugin") {
                MultichannelMixer(inputCount: inputs)
            })
        }
        for inputs in [1, 4] {
            plugins.append(ExportedPlugin(
                symbol: "panner3d-\(inputs)", name: inputs == 1 ? "Trellis 3D Panner" : "Trellis 3D Mixer (\(inputs) Mono Inputs)",
                lv2Class: "SpatialPlugin"
            ) { Mixer3D(inputCount: inputs) })
        }
        return plugins
    }()

    /// The plugin with this URI.
    public static func plugin(uri: String) -> ExportedPlugin? {
        all.first { $0.uri == uri }
    }

    /// `band12.gain` → 12; anything else → 0.
    static func bandNumber(_ identifier: String) -> Int {
        guard identifier.hasPrefix("band") else { return 0 }
        return Int(identifier.dropFirst(4).prefix { $0.isNumber }) ?? 0
    }

    static func hertz(_ value: Float) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// `unit` with one channel on every bus instead of two, for the mono plugins.
    static func width(_ unit: AudioUnitBase, _ channels: Int) -> AudioUnitBase {
        guard channels != 2 else { return unit }
        for scope in [Scope.input, .output] {
            for element in 0..<unit.elementCount(scope) {
                try? unit.setFormat(.canonical(sampleRate: 48_000, channelCount: channels), scope: scope, element: element)
            }
        }
        return unit
    }
}
