import TrellisCore
import TrellisUnits

extension GraphBody {
    /// The rate this body's converters ask for (their `rate` parameter), with where it
    /// was written: a graph runs at one rate, so a converter's rate is the session's when
    /// `defaults: sample-rate` says nothing. Converters that disagree, or one that
    /// disagrees with `defaults`, are an error at the converter's value.
    func converterRate(registry: ComponentRegistry, defaults: Double?) throws(SessionError) -> Double? {
        var found: (rate: Double, location: SourceLocation)?
        try collectConverterRates(registry: registry, defaults: defaults, into: &found)
        return found?.rate
    }

    private func collectConverterRates(
        registry: ComponentRegistry, defaults: Double?, into found: inout (rate: Double, location: SourceLocation)?
    ) throws(SessionError) {
        for node in nodes {
            guard case .unit(let key) = node.source,
                  (try? registry.component(named: key))?.componentDescription == Converter.componentDescription,
                  let setting = node.parameters.first(where: { $0.name.lowercased() == "rate" }),
                  // A rate out of range is refused where the parameter is set, at its value.
                  let rate = Double(setting.value), rate >= 1_000, rate <= 768_000 else { continue }
            if let defaults, defaults != rate {
                throw SessionError(
                    "node \(quoted(node.name)): the converter asks for \(Int(rate)) Hz but defaults: sample-rate is \(Int(defaults)) Hz; a graph runs at one rate",
                    at: setting.valueLocation)
            }
            if let found, found.rate != rate {
                throw SessionError(
                    "node \(quoted(node.name)): the converter asks for \(Int(rate)) Hz but another (\(found.location)) asks for \(Int(found.rate)) Hz; a graph runs at one rate",
                    at: setting.valueLocation)
            }
            found = (rate, setting.valueLocation)
        }
        for subgraph in subgraphs {
            if case .inline(let body) = subgraph.definition {
                try body.collectConverterRates(registry: registry, defaults: defaults, into: &found)
            }
        }
    }
}
