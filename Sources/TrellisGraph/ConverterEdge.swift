import TrellisCore
import TrellisUnits

/// What a graph's converters ask of its edges: the rate conversion's quality for files
/// read at another rate, and whether output made into 16- or 24-bit samples is dithered.
/// A graph runs at one rate, so converters are read together: the first that changes a
/// setting from its default decides it.
public struct ConverterEdge: Sendable, Equatable {
    public var quality: SampleRateConverter.Quality = .high
    /// nil when no converter turns dither off.
    public var dither: Bool?

    public init(quality: SampleRateConverter.Quality = .high, dither: Bool? = nil) {
        self.quality = quality
        self.dither = dither
    }

    /// The settings of every converter in `graph`, its subgraphs' included. Thread: control.
    public init(_ graph: Graph) {
        for node in graph.nodes {
            if let subgraph = node.unit as? Subgraph {
                let inner = ConverterEdge(subgraph.graph)
                if quality == .high { quality = inner.quality }
                if dither == nil { dither = inner.dither }
            }
            guard let converter = node.unit as? Converter else { continue }
            let settings = converter.edgeSettings
            if quality == .high { quality = settings.quality }
            if dither == nil, !settings.dither { dither = false }
        }
    }
}
