import TrellisCore
import TrellisEngine

extension EngineNotice {
    /// How a session names the notice's unit: `lv2:URI`, a short name, or the triple;
    /// nil for engine-wide notices. Thread: any.
    public func unitKey(in registry: ComponentRegistry) -> String? {
        guard let description = unit?.description else { return nil }
        guard let component = registry.components(matching: description).first else { return description.description }
        if let uri = component.uri { return "lv2:" + uri }
        return component.shortName
    }

    /// True for what a person running a render or a session should be warned of.
    public var isWarning: Bool {
        switch kind {
        case .nonFiniteOutput, .parameterQueueFull: true
        case .programSwapped: false
        }
    }

    /// The notice as a person reads it, e.g. `node fx1 (lv2:http://plugin.org.uk/swh-plugins/const)
    /// produced non-finite samples from 0.00 s; silenced`. Thread: any.
    public func text(registry: ComponentRegistry) -> String {
        let node = unit.map { "node \($0.node) (\(unitKey(in: registry) ?? $0.description.description))" } ?? "unit #\(unitID)"
        let when = seconds.map { String(decimals: 2, $0) + " s" } ?? "sample \(sampleTime)"
        switch kind {
        case .nonFiniteOutput: return "\(node) produced non-finite samples from \(when); silenced"
        case .parameterQueueFull: return "\(node): parameter changes waited at \(when), the queue was full"
        case .programSwapped: return "a new program plays from sample \(sampleTime)"
        }
    }
}

extension String {
    /// `value` with exactly `decimals` digits after the point, without Foundation.
    fileprivate init(decimals: Int, _ value: Double) {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale), fraction = Int(scaled) - whole * Int(scale)
        let digits = String(fraction)
        self = (value < 0 && scaled > 0 ? "-" : "") + "\(whole)" + (decimals > 0 ? "." + String(repeating: "0", count: decimals - digits.count) + digits : "")
    }
}
