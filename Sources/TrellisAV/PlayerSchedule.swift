import Foundation
import TrellisCore

struct PlayerCompletion: Sendable {
    let type: AVAudioPlayerNodeCompletionCallbackType
    let handler: AVAudioPlayerNodeCompletionHandler
}

/// The control side of a player node: what waits to go to the kernel, in order, what
/// the kernel holds (kept alive until it hands it back), and the handlers to call.
///
/// Thread: any, under its lock; handlers run on `PlayerSchedule.delivery`, outside it.
final class PlayerSchedule: @unchecked Sendable {
    enum Item {
        case buffer(AVAudioPCMBuffer, start: Int64, options: PlayerRegionOptions, completion: PlayerCompletion?)
        case file(FileFeed, start: Int64)
    }

    /// Where handlers run, and the timer that takes back what kernels finished.
    static let delivery = DispatchQueue(label: "TrellisAV.AVAudioPlayerNode")
    /// Regions at most in the kernel's queue at once (its capacity is 128).
    static let inFlightLimit = 96

    private struct InFlight {
        let keep: AVAudioPCMBuffer
        let completion: PlayerCompletion?
        /// The feed a file's piece came from.
        let feed: FileFeed?
    }

    private let lock = NSLock()
    private var backlog: [Item] = []
    private var inFlight: [UInt64: InFlight] = [:]
    private var playedBackWaiting: [(nodeTime: Int64, completion: PlayerCompletion)] = []
    private var nextID: UInt64 = 1
    private var timer: DispatchSourceTimer?

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Queues `item` behind what waits, and sends what the kernel can take.
    func add(_ item: Item, to node: AVAudioPlayerNode) {
        let handlers = withLock {
            var handlers: [@Sendable () -> Void] = []
            if case .buffer(_, _, let options, _) = item, options.contains(.interrupts) {
                // What waits behind the kernel's queue is interrupted too.
                handlers = backlog.compactMap(Self.handlerOfDropped)
                backlog.removeAll()
            }
            backlog.append(item)
            pump(node, readAhead: 0)
            startTimer(node)
            return handlers
        }
        deliver(handlers)
    }

    /// Takes back what the kernel finished, calls its handlers, and sends what waits
    /// (reading files at least `readAhead` frames ahead).
    func service(_ node: AVAudioPlayerNode, readAhead: Int) {
        let handlers = withLock {
            var handlers: [@Sendable () -> Void] = []
            let latency = node.playbackLatencyFrames
            while let done = node.playerUnit.takeDone() {
                guard let flight = inFlight.removeValue(forKey: done.id) else { continue }
                var finished = flight.completion
                if let feed = flight.feed {
                    feed.piecesInFlight -= 1
                    feed.framesInFlight -= Int(flight.keep.frameLength)
                    if feed.isFinished, feed.piecesInFlight == 0 { finished = feed.takeCompletion() }
                }
                guard let completion = finished else { continue }
                if completion.type == .dataPlayedBack, !done.dropped {
                    playedBackWaiting.append((done.nodeTime + latency, completion))
                } else {
                    handlers.append(Self.call(completion))
                }
            }
            let heard = node.playerUnit.clock.lastCycle().end
            playedBackWaiting.removeAll { waiting in
                guard waiting.nodeTime <= heard else { return false }
                let completion = waiting.completion
                handlers.append(Self.call(completion))
                return true
            }
            pump(node, readAhead: readAhead)
            if backlog.isEmpty, inFlight.isEmpty, playedBackWaiting.isEmpty {
                timer?.cancel()
                timer = nil
            }
            return handlers
        }
        deliver(handlers)
    }

    /// Drops what waits (its handlers are returned to call) and sends `command`, after
    /// which the kernel drops what it holds. Call under the lock.
    func dropAll(sending command: PlayerCommand, to unit: ScheduledPlayerUnit) -> [@Sendable () -> Void] {
        var handlers = backlog.compactMap(Self.handlerOfDropped)
        backlog.removeAll()
        for (id, flight) in inFlight {
            if let completion = flight.completion ?? flight.feed?.takeCompletion() { handlers.append(Self.call(completion)) }
            inFlight[id] = InFlight(keep: flight.keep, completion: nil, feed: flight.feed)
        }
        for waiting in playedBackWaiting {
            let completion = waiting.completion
            handlers.append(Self.call(completion))
        }
        playedBackWaiting.removeAll()
        send(command, to: unit)
        return handlers
    }

    /// Sends `command`, waiting out a full ring (the kernel empties it every cycle). Call under the lock.
    func send(_ command: PlayerCommand, to unit: ScheduledPlayerUnit) {
        var tries = 0
        while !unit.send(command) {
            tries += 1
            if tries > 2_000 { return }
            usleep(500)
        }
    }

    func deliver(_ handlers: [@Sendable () -> Void]) {
        guard !handlers.isEmpty else { return }
        Self.delivery.async { for handler in handlers { handler() } }
    }

    /// Runs `completion`'s handler on the delivery queue.
    func deliver(_ completion: PlayerCompletion?) {
        guard let completion else { return }
        deliver([Self.call(completion)])
    }

    private static func call(_ completion: PlayerCompletion) -> @Sendable () -> Void {
        { completion.handler(completion.type) }
    }

    private static func handlerOfDropped(_ item: Item) -> (@Sendable () -> Void)? {
        let completion: PlayerCompletion?
        switch item {
        case .buffer(_, _, _, let dropped): completion = dropped
        case .file(let feed, _): completion = feed.takeCompletion()
        }
        return completion.map(call)
    }

    /// Sends waiting items, in order, while the kernel has room; a file sends pieces
    /// until it has `max(65,536, 2 × readAhead)` frames in flight. Call under the lock.
    private func pump(_ node: AVAudioPlayerNode, readAhead: Int) {
        let unit = node.playerUnit
        while let item = backlog.first, inFlight.count < Self.inFlightLimit {
            switch item {
            case .buffer(let buffer, let start, let options, let completion):
                let id = take(buffer, completion: completion, feed: nil)
                send(PlayerCommand(kind: .region, region: region(id, buffer, start: start, options: options)), to: unit)
                backlog.removeFirst()
            case .file(let feed, let start):
                // Read once the engine is set up, at the rate it renders at.
                guard unit.isInitialized, feed.framesInFlight < max(65_536, 2 * readAhead) else { return }
                if let piece = feed.nextPiece(rate: unit.sampleRate) {
                    let id = take(piece, completion: nil, feed: feed)
                    feed.piecesInFlight += 1
                    feed.framesInFlight += Int(piece.frameLength)
                    let first = feed.piecesSent == 0
                    feed.piecesSent += 1
                    send(PlayerCommand(kind: .region, region: region(id, piece, start: first ? start : PlayerRegion.follows, options: [])), to: unit)
                }
                guard feed.isFinished else { continue }
                // Read out: its handler runs when its last piece comes back, or now if none is out.
                if feed.piecesInFlight == 0 { deliver(feed.takeCompletion()) }
                backlog.removeFirst()
            }
        }
    }

    private func take(_ buffer: AVAudioPCMBuffer, completion: PlayerCompletion?, feed: FileFeed?) -> UInt64 {
        let id = nextID
        nextID += 1
        inFlight[id] = InFlight(keep: buffer, completion: completion, feed: feed)
        return id
    }

    private func region(_ id: UInt64, _ buffer: AVAudioPCMBuffer, start: Int64, options: PlayerRegionOptions) -> PlayerRegion {
        PlayerRegion(id: id, channels: buffer.floatChannelData!, channelCount: Int(buffer.format.channelCount),
                     frameCount: Int(buffer.frameLength), start: start, options: options)
    }

    /// While anything is in flight, takes back what the kernel finished every 5 ms.
    private func startTimer(_ node: AVAudioPlayerNode) {
        guard timer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: Self.delivery)
        timer.schedule(deadline: .now() + .milliseconds(5), repeating: .milliseconds(5))
        timer.setEventHandler { [weak self, weak node] in
            guard let self, let node else { return }
            self.service(node, readAhead: 0)
        }
        timer.resume()
        self.timer = timer
    }

    deinit { timer?.cancel() }
}

/// A file (or a segment of one) read in pieces for a player node, converted to the
/// engine's rate (as it is when the first piece is read) when the file's differs. Thread: its schedule's, under its lock.
final class FileFeed {
    static let pieceFrames: AVAudioFrameCount = 16_384

    private let file: AVAudioFile
    private var remaining: AVAudioFramePosition
    /// The engine's rate the pieces are converted to, and the converter when the file's differs.
    private var format: AVAudioFormat?
    private var converter: AVAudioConverter?
    private var ended = false
    private var completion: PlayerCompletion?
    var piecesInFlight = 0
    var framesInFlight = 0
    var piecesSent = 0

    init(url: URL, from start: AVAudioFramePosition, frames: AVAudioFramePosition, completion: PlayerCompletion?) throws {
        self.completion = completion
        file = try AVAudioFile(forReading: url)
        file.framePosition = start
        remaining = max(0, frames)
    }

    /// Converts to `rate` from the first piece on: the engine's rate when it first renders.
    private func setRate(_ rate: Double) -> AVAudioFormat? {
        if let format, format.sampleRate == rate || piecesSent > 0 { return format }
        let source = file.processingFormat
        format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: source.channelCount)
        converter = source.sampleRate == rate ? nil : format.flatMap { AVAudioConverter(from: source, to: $0) }
        return format
    }

    /// The handler, once: whoever takes it calls it.
    func takeCompletion() -> PlayerCompletion? {
        defer { completion = nil }
        return completion
    }

    /// Whether the last piece has been read.
    var isFinished: Bool { ended }

    /// The next piece at the engine's `rate`, or nil when the file (segment) is read out
    /// or cannot be read.
    func nextPiece(rate: Double) -> AVAudioPCMBuffer? {
        guard !ended else { return nil }
        guard let format = setRate(rate), let piece = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: Self.pieceFrames) else {
            ended = true
            return nil
        }
        if let converter {
            var failure: NSError?
            let status = converter.convert(to: piece, error: &failure) { [self] packets, status in
                let frames = min(AVAudioFramePosition(packets), remaining)
                guard frames > 0, let input = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames)),
                      (try? file.read(into: input, frameCount: AVAudioFrameCount(frames))) != nil, input.frameLength > 0 else {
                    status.pointee = .endOfStream
                    return nil
                }
                remaining -= AVAudioFramePosition(input.frameLength)
                status.pointee = .haveData
                return input
            }
            if status == .endOfStream || status == .error { ended = true }
        } else {
            let frames = AVAudioFrameCount(min(AVAudioFramePosition(Self.pieceFrames), remaining))
            if frames == 0 || (try? file.read(into: piece, frameCount: frames)) == nil { piece.frameLength = 0 }
            remaining -= AVAudioFramePosition(piece.frameLength)
            if remaining <= 0 || piece.frameLength == 0 { ended = true }
        }
        guard piece.frameLength > 0 else { ended = true; return nil }
        return piece
    }
}

extension AVAudioPCMBuffer {
    /// This buffer when it holds deinterleaved floats, else a copy that does.
    func standardCopy() -> AVAudioPCMBuffer? {
        if format.isStandard { return self }
        guard let standard = AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channels: format.channelCount),
              let copy = AVAudioPCMBuffer(pcmFormat: standard, frameCapacity: max(1, frameLength)) else { return nil }
        for channel in 0..<Int(format.channelCount) {
            for frame in 0..<Int(frameLength) { copy.setSample(sample(channel: channel, frame: frame), channel: channel, frame: frame) }
        }
        copy.frameLength = frameLength
        return copy
    }
}
