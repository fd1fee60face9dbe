import TrellisCore
import TrellisUnits

/// One of Trellis' units as an LV2 plugin: its URI, what LV2 calls it, and how to make
/// the unit with the plugin's fixed shape (channels, inputs, band count). Everything
/// else — ports, ranges, defaults, units — comes from the unit's own parameter list, so
/// the Turtle and the code never drift. Thread: any (a value).
public struct ExportedPlugin: Sendable {
    /// The last part of the URI and the bundle's file names: `eq8-stereo`.
    public let symbol: String
    public let name: String
    /// An `lv2:` plugin class (`EQPlugin`, `DelayPlugin`...).
    public let lv2Class: String
    /// Values the plugin fixes and does not show as ports (the band count of a graphic
    /// EQ, the bands a 4-band EQ leaves out).
    public let fixed: [String: Float]
    /// Parameters shown as ports; nil for every parameter of the unit.
    public let shown: (@Sendable (ParameterInfo) -> Bool)?
    /// Port names that read better than the parameter's (a 10-band EQ's centres).
    public let names: [String: String]
    /// Presets as port values, by name (the iPod EQ's curves).
    public let presets: [(name: String, values: [String: Float])]
    /// The `patch:writable` path property of a unit that loads content (the sampler's
    /// bank): set by `patch:Set` and kept in the plugin's state.
    public let content: ContentProperty?
    let make: @Sendable () -> AudioUnitBase

    public struct ContentProperty: Sendable {
        public let uri: String
        public let label: String
    }

    public static let uriBase = "urn:trellis:lv2:"

    /// The largest slice a plugin's unit renders at once; `run` splits longer calls.
    public static let sliceFrames = 4096

    public var uri: String { Self.uriBase + symbol }

    init(
        symbol: String, name: String, lv2Class: String, fixed: [String: Float] = [:],
        shown: (@Sendable (ParameterInfo) -> Bool)? = nil, names: [String: String] = [:],
        presets: [(name: String, values: [String: Float])] = [], content: ContentProperty? = nil,
        make: @escaping @Sendable () -> AudioUnitBase
    ) {
        self.symbol = symbol
        self.name = name
        self.lv2Class = lv2Class
        self.fixed = fixed
        self.shown = shown
        self.names = names
        self.presets = presets
        self.content = content
        self.make = make
    }

    /// A new unit at `sampleRate`, with the plugin's fixed values and its content read
    /// from `contentPath`, initialized for calls of up to `maximumFrames`. Thread: not
    /// audio (allocates, reads files).
    public func makeUnit(
        sampleRate: Double, maximumFrames: Int, values: [String: Float] = [:], contentPath: String? = nil
    ) throws(AudioUnitError) -> AudioUnitBase {
        let unit = make()
        try unit.setSampleRate(sampleRate)
        try unit.setMaximumFramesPerSlice(maximumFrames)
        if let contentPath {
            guard let loading = unit as? ContentLoading else {
                throw .invalidState("\(name) loads no content", unit: unit.name)
            }
            try loading.loadContent(path: contentPath)
        }
        for (identifier, value) in fixed { try unit.setParameter(named: identifier, value) }
        for (identifier, value) in values { try unit.setParameter(named: identifier, value) }
        try unit.initialize()
        return unit
    }

    /// The plugin's ports, in index order, for a unit made by `makeUnit`.
    public func ports(of unit: AudioUnitBase) -> [ExportedPort] {
        ExportedPort.layout(of: unit, names: names, takesEvents: content != nil, shown: { info in fixed[info.identifier] == nil && (shown?(info) ?? true) })
    }
}
