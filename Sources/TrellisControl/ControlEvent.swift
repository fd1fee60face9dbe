import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisJACK

/// A notification streamed to watching peers. Thread: any (a plain value).
public struct ControlEvent: Sendable, Equatable {
    public var kind: ControlEventKind
    public var text: String
    public var data: ControlValue

    public init(kind: ControlEventKind, text: String, data: ControlValue) {
        self.kind = kind
        self.text = text
        self.data = data
    }

    /// `event KIND TEXT`: a line no reply begins with.
    public var line: String { "event \(kind.rawValue) \(ControlReply.oneLine(text))" }

    /// The JSON object, echoing the `id` of the `watch` request.
    public func json(id: ControlValue) -> ControlValue {
        .object([("id", id), ("event", .string(kind.rawValue)), ("data", data)])
    }

    /// The event for a warning from the audio thread, naming the node (nil for notices
    /// watchers do not hear about).
    static func from(_ notice: EngineNotice, registry: ComponentRegistry) -> ControlEvent? {
        guard notice.isWarning else { return nil }
        let text = notice.text(registry: registry)
        var fields: [(String, ControlValue)] = [("kind", .string("\(notice.kind)"))]
        if let unit = notice.unit {
            fields.append(("node", .string(unit.node)))
            fields.append(("unit", .string(notice.unitKey(in: registry) ?? unit.description.description)))
        }
        fields.append(("sampleTime", .number(Double(notice.sampleTime))))
        if let seconds = notice.seconds { fields.append(("seconds", .number(seconds))) }
        fields.append(("message", .string(text)))
        return ControlEvent(kind: .warning, text: text, data: .object(fields))
    }

    /// The event for a JACK notification, if watchers hear about it.
    static func from(_ event: JACKEvent) -> ControlEvent {
        switch event {
        case .xrun(let total):
            return ControlEvent(kind: .xrun, text: "total=\(total)", data: .object([("total", .number(total))]))
        case .interruptionBegan(let reason):
            return ControlEvent(kind: .interruption, text: "began \(reason)", data: .object([("state", .string("began")), ("reason", .string(reason))]))
        case .interruptionEnded:
            return ControlEvent(kind: .interruption, text: "ended", data: .object([("state", .string("ended"))]))
        case .routeChanged(let change):
            return ControlEvent(
                kind: .route, text: "\(change.connected ? "connected" : "disconnected") \(change.port) \(change.peer)",
                data: .object([("port", .string(change.port)), ("peer", .string(change.peer)), ("connected", .bool(change.connected))]))
        default:
            return ControlEvent(kind: .jack, text: event.description, data: .object([("message", .string(event.description))]))
        }
    }
}
