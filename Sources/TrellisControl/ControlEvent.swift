import TrellisAudioFile
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisMedia

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

    /// The event for a notice from the engine's finish step, naming the node: a
    /// warning (a silenced node, a full queue, a plugin's error or warning line), a
    /// plugin's other log lines, MIDI a plugin sent; nil for notices watchers do not
    /// hear about.
    static func from(_ notice: EngineNotice, registry: ComponentRegistry) -> ControlEvent? {
        let kind: ControlEventKind
        switch notice.kind {
        case .log: kind = notice.isWarning ? .warning : .log
        case .midiOutput: kind = .midi
        case .programSwapped: return nil
        case .latencyChanged: kind = notice.isWarning ? .warning : .graph
        default:
            guard notice.isWarning else { return nil }
            kind = .warning
        }
        return ControlEvent(kind: kind, text: notice.text(registry: registry), data: notice.controlValue(registry: registry))
    }

    /// The event for a file player's notification: its end of file, and as warnings a
    /// read that failed or damaged frames played as silence; nil for underruns (the
    /// status line counts those).
    public static func from(_ notification: PlayerNotification, node: String) -> ControlEvent? {
        switch notification {
        case .endOfFile(let sampleTime):
            return ControlEvent(kind: .eof, text: "\(node) sampleTime=\(sampleTime)",
                                data: .object([("node", .string(node)), ("sampleTime", .number(Double(sampleTime)))]))
        case .readFailed(let error):
            return ControlEvent(kind: .warning, text: "node \(node): \(error); the player stopped there",
                                data: .object([("node", .string(node)), ("error", .string("\(error)"))]))
        case .damaged(let path, let damage, let sampleRate):
            return ControlEvent(kind: .warning, text: "node \(node): \(path): \(damage.description(sampleRate: sampleRate))",
                                data: .object([("node", .string(node)), ("path", .string(path)),
                                               ("errors", .number(Double(damage.errorCount))),
                                               ("silencedFrames", .number(Double(damage.silencedFrames)))]))
        case .underrun:
            return nil
        }
    }

    /// The event for a live backend's notification.
    static func from(_ event: LiveBackendEvent) -> ControlEvent {
        switch event {
        case .xrun(let total):
            return ControlEvent(kind: .xrun, text: "total=\(total)", data: .object([("total", .number(total))]))
        case .interruptionBegan(let reason):
            return ControlEvent(kind: .interruption, text: "began \(reason)", data: .object([("state", .string("began")), ("reason", .string(reason))]))
        case .interruptionEnded:
            return ControlEvent(kind: .interruption, text: "ended", data: .object([("state", .string("ended"))]))
        case .route(let port, let peer, let connected):
            return ControlEvent(
                kind: .route, text: "\(connected ? "connected" : "disconnected") \(port) \(peer)",
                data: .object([("port", .string(port)), ("peer", .string(peer)), ("connected", .bool(connected))]))
        case .midiDropped(let port, let output, let count, _):
            return ControlEvent(kind: .warning, text: event.description, data: .object([
                ("port", .string(port)), ("direction", .string(output ? "output" : "input")), ("count", .number(count)),
                ("message", .string(event.description)),
            ]))
        default:
            return ControlEvent(kind: .jack, text: event.description, data: .object([("message", .string(event.description))]))
        }
    }
}

extension EngineNotice {
    /// The notice's facts as a JSON object, for `watch` events and `trellis run --json`.
    /// Thread: any.
    public func controlValue(registry: ComponentRegistry) -> ControlValue {
        .object(fields(registry: registry).map { name, field -> (String, ControlValue) in
            switch field {
            case .text(let text): (name, .string(text))
            case .number(let number): (name, .number(number))
            case .numbers(let numbers): (name, .array(numbers.map { .number($0) }))
            }
        })
    }
}
