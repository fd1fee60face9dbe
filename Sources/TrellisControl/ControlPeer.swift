import Foundation
import Synchronization
import TrellisMedia

/// One client of the control server as the dispatcher sees it: its mode, its watch,
/// and how to hand it an event line. Transports make one per connection (or, for OSC,
/// per sender address).
///
/// Thread: any.
public final class ControlPeer: @unchecked Sendable {
    struct State {
        var mode = ControlMode.text
        var closing = false
        var watch: Watch?
        /// After `tap stream`'s reply the connection carries only audio.
        var stream: TapStream?
    }

    /// A live subscription; its meters are read on the dispatcher's queue.
    final class Watch: @unchecked Sendable {
        let request: WatchRequest
        let id: ControlValue
        /// The buses read every frame, then those read every other frame.
        let meters: [MeterSlot]
        let everyFrame: Int
        var timer: DispatchSourceTimer?
        /// The time observers this watch put on file players, removed with it.
        var playerObservers: [(FilePlayer, MediaListenerToken)] = []
        /// Frames read so far, and the buffer the next is written into.
        var frames = 0
        var frame: MeterFrame
        var open: [(slot: MeterSlot, meter: any LevelMeter, loudness: BusLoudness?)] = []

        init(request: WatchRequest, id: ControlValue, meters: [MeterSlot], everyFrame: Int) {
            self.request = request
            self.id = id
            self.meters = meters
            self.everyFrame = everyFrame
            frame = MeterFrame(id: id.json.utf8)
        }

        /// The buses the next frame reads.
        func nextFrame() -> ArraySlice<MeterSlot> {
            defer { frames &+= 1 }
            return frames % 2 == 0 ? meters[...] : meters[..<everyFrame]
        }
    }

    public let name: String
    let state = Mutex(State())
    /// Hands one event line to the transport without waiting; false when it was dropped.
    let deliver: @Sendable (String) -> Bool
    let dropped = Atomic<Int>(0)

    /// Hands raw bytes to the transport without waiting; false when they were dropped.
    /// Nil for a transport that cannot carry a stream (OSC).
    let deliverBytes: (@Sendable (UnsafeRawBufferPointer) -> Bool)?
    /// Closes the connection once what is queued has been sent.
    let finish: @Sendable () -> Void
    /// Whether a watch's meter frame is handed over as one delivery, its lines joined by
    /// newlines, rather than a line at a time: a transport that queues bytes.
    let takesFrames: Bool

    /// `deliver` and `deliverBytes` must not block: a transport queues or drops.
    public init(name: String, mode: ControlMode = .text, takesFrames: Bool = false, deliverBytes: (@Sendable (UnsafeRawBufferPointer) -> Bool)? = nil,
                finish: @escaping @Sendable () -> Void = {}, deliver: @escaping @Sendable (String) -> Bool) {
        self.name = name
        self.takesFrames = takesFrames
        state.withLock { $0.mode = mode }
        self.deliverBytes = deliverBytes
        self.finish = finish
        self.deliver = deliver
    }

    /// True once a `tap stream` has begun on this connection: it takes no more commands.
    public var isStreaming: Bool { state.withLock { $0.stream != nil } }

    /// Starts the stream's audio, after its reply is queued. Thread: any.
    public func replyQueued() {
        state.withLock { $0.stream }?.arm()
    }

    public var mode: ControlMode { state.withLock { $0.mode } }

    /// True after `bye`: the transport closes the connection once the reply is sent.
    public var wantsToClose: Bool { state.withLock { $0.closing } }

    /// Events lost because the client did not read them fast enough.
    public var droppedEvents: Int { dropped.load(ordering: .relaxed) }

    var watch: Watch? { state.withLock { $0.watch } }

    /// Whether the peer's watch takes events of `kind`. Thread: any.
    public func watches(_ kind: ControlEventKind) -> Bool {
        state.withLock { $0.watch?.request.kinds.contains(kind) ?? false }
    }

    /// Sends an event if the peer watches its kind; never waits.
    func send(_ event: ControlEvent) {
        let (mode, watch) = state.withLock { ($0.mode, $0.watch) }
        guard let watch, watch.request.kinds.contains(event.kind) else { return }
        let line = mode == .json ? event.json(id: watch.id).json : event.line
        if !deliver(line) { dropped.add(1, ordering: .relaxed) }
    }

    /// Whether a watch's meter frames go to this peer as one delivery (`send(frame:)`).
    var takesJSONFrames: Bool { takesFrames && mode == .json }

    /// Sends a frame of `meter` events as one delivery, its JSON lines joined by newlines.
    func send(frame: MeterFrame) {
        guard !frame.isEmpty, watches(.meter) else { return }
        if !deliver(String(decoding: frame.bytes, as: UTF8.self)) { dropped.add(1, ordering: .relaxed) }
    }

    /// Sends one frame of a watch's meter readings, as `meter` events, a line each.
    func send(_ readings: [MeterReading]) {
        let (mode, watch) = state.withLock { ($0.mode, $0.watch) }
        guard let watch, watch.request.kinds.contains(.meter) else { return }
        let id = watch.id.json
        if takesFrames && mode == .text {
            // One delivery for the frame, as JSON frames are: lines joined by newlines.
            var bytes: [UInt8] = []
            for (index, reading) in readings.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: "\n")) }
                bytes.append(contentsOf: "event meter ".utf8)
                bytes.append(contentsOf: ControlReply.oneLine(reading.text).utf8)
            }
            if !bytes.isEmpty, !deliver(String(decoding: bytes, as: UTF8.self)) { dropped.add(1, ordering: .relaxed) }
            return
        }
        for reading in readings {
            let line = mode == .json ? reading.eventJSON(id: id) : ControlEvent(kind: .meter, text: reading.text, data: .null).line
            if !deliver(line) { dropped.add(1, ordering: .relaxed) }
        }
    }
}
