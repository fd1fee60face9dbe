import TrellisCore
import TrellisEngine

extension EngineNotice {
    /// How a session names the notice's unit: `lv2:URI`, a short name, or the triple;
    /// nil for engine-wide notices. Thread: any.
    public func unitKey(in registry: ComponentRegistry) -> String? {
        guard let description = unit?.componentDescription else { return nil }
        guard let component = registry.components(matching: description).first else { return description.description }
        if let uri = component.uri { return "lv2:" + uri }
        return component.shortName
    }

    /// True for what a person running a render or a session should be warned of: a
    /// silenced node, a full queue, lost messages, a plugin's error or warning line.
    public var isWarning: Bool {
        switch kind {
        case .nonFiniteOutput, .parameterQueueFull, .messagesDropped, .midiDropped, .unitFailed, .unitLate: true
        case .log:
            if case .log(let level, _) = message { level == .error || level == .warning } else { false }
        case .latencyChanged: message != nil
        case .programSwapped, .midiOutput: false
        }
    }

    /// The notice as a person reads it, e.g. `node fx1 (lv2:http://plugin.org.uk/swh-plugins/const)
    /// produced non-finite samples from 0.00 s; silenced`. Thread: any.
    public func text(registry: ComponentRegistry) -> String {
        let node = unit.map { "node \($0.node) (\(unitKey(in: registry) ?? $0.componentDescription.description))" } ?? "unit #\(unitID)"
        let when = seconds.map { String(decimals: 2, $0) + " s" } ?? "sample \(sampleTime)"
        switch (kind, message) {
        case (.nonFiniteOutput, _) where unit == nil && unitID == 0:
            return "non-finite samples reached the graph's output from \(when); silenced there"
        case (.nonFiniteOutput, _):
            let after = dropped == 1 ? "silenced and reset; it plays again once its output is finite" : "silenced"
            return "\(node) produced non-finite samples from \(when); \(after)"
        case (.parameterQueueFull, _): return "\(node): parameter changes waited at \(when), the queue was full"
        case (.programSwapped, _): return "a new program plays from sample \(sampleTime)"
        case (.log, .log(let level, let line)?): return "\(node) logs \(level.rawValue): \(line)"
        case (.unitFailed, .failed(let cause, _)?): return "\(node) failed\(sampleTime >= 0 ? " at " + when : ""): \(cause); silenced until restarted (ctl restart \(unit?.node ?? "NODE"))"
        case (.unitLate, .late(let cycles)?):
            return "\(node): its process answered \(cycles == 1 ? "a cycle" : "\(cycles) cycles") past the deadline, output as on a fault; it plays on"
        case (.midiOutput, .midi(let timed, let bus)?):
            return "\(node) sent \(timed.message) on \(midiBusName(bus)) at \(when)"
        case (.messagesDropped, _):
            return "\(node): \(dropped) log lines or MIDI messages were lost, the queues were full"
        case (.latencyChanged, .log(_, let failure)?):
            return "\(node): latency now \(latencyChange?.to ?? 0) frames, but the graph could not be compiled again: \(failure)"
        case (.latencyChanged, _):
            return "\(node): latency now \(latencyChange?.to ?? 0) frames (was \(latencyChange?.from ?? 0)); paths re-aligned"
        case (.midiDropped, _):
            let whose = unitID == 0 ? "the backend's MIDI ports" : node
            return "\(whose): \(dropped) MIDI messages were dropped at \(when), a cycle's buffer was full"
        default: return "\(node): \(kind)"
        }
    }

    /// The notice's facts for a JSON stream or a `watch` event, the text last.
    /// Thread: any.
    public func fields(registry: ComponentRegistry) -> [(String, NoticeField)] {
        var fields: [(String, NoticeField)] = [("kind", .text("\(kind)"))]
        if let unit {
            fields.append(("node", .text(unit.node)))
            fields.append(("unit", .text(unitKey(in: registry) ?? unit.componentDescription.description)))
        }
        if sampleTime >= 0 { fields.append(("sampleTime", .number(Double(sampleTime)))) }
        if let seconds { fields.append(("seconds", .number(seconds))) }
        switch message {
        case .log(let level, let line)?:
            fields.append(("level", .text(level.rawValue)))
            fields.append(("line", .text(line)))
        case .failed(let cause, _)?:
            fields.append(("cause", .text(cause)))
        case .late(let cycles)?:
            fields.append(("cycles", .number(Double(cycles))))
        case .midi(let timed, let bus)?:
            fields.append(("bus", .text(midiBusName(bus))))
            fields.append(("bytes", .numbers(timed.message.bytes.map(Double.init))))
        case nil:
            if let change = latencyChange {
                fields.append(("latencyFrom", .number(Double(change.from))))
                fields.append(("latency", .number(Double(change.to))))
            }
            if kind == .messagesDropped || kind == .midiDropped { fields.append(("dropped", .number(Double(dropped)))) }
        }
        fields.append(("message", .text(text(registry: registry))))
        return fields
    }

    private func midiBusName(_ bus: Int) -> String {
        guard let names = unit?.midiOutputs, bus >= 0, bus < names.count else { return "MIDI output \(bus)" }
        return names[bus]
    }
}

/// One value of a notice's facts.
public enum NoticeField: Sendable, Equatable {
    case text(String)
    case number(Double)
    case numbers([Double])
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
