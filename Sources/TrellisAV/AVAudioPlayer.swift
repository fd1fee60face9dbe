import Foundation
import Synchronization
import TrellisCore
import TrellisGraph
import TrellisMedia

/// What an `AVAudioPlayer` tells its delegate, as in AVFAudio.
public protocol AVAudioPlayerDelegate: AnyObject {
    /// The file played to its end (and through its loops); not called on `stop`.
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool)
    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?)
}

extension AVAudioPlayerDelegate {
    public func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {}
    public func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {}
}

/// Plays one file, as AVFAudio's `AVAudioPlayer`: every player of the process is a
/// file player on one shared engine (a JACK client), each on its own input of that
/// engine's main mixer, so players started with `play(atTime:)` at one
/// `deviceCurrentTime` start on the same frame. Thread: the caller's control thread;
/// the delegate is called on a thread of Trellis' own.
open class AVAudioPlayer: @unchecked Sendable {
    public let url: URL?
    public let format: AVAudioFormat
    public weak var delegate: (any AVAudioPlayerDelegate)?
    private let node = FilePlayerNode()
    private var filePlayer: FilePlayer { node.player }
    private var listener: MediaListenerToken?
    private var fade: Fade?

    /// Opens `url` (WAV, AIFF, CAF, FLAC, Ogg Vorbis); throws what is wrong with it.
    public init(contentsOf url: URL) throws {
        let file = try AVAudioFile(forReading: url)
        self.url = url
        format = file.fileFormat
        file.close()
        do { try filePlayer.load(path: url.path) } catch { throw AVAudioError(.file, "\(error)") }
        listener = filePlayer.addListener { [weak self] notification in
            guard let self else { return }
            switch notification {
            case .endOfFile: delegate?.audioPlayerDidFinishPlaying(self, successfully: true)
            case .readFailed(let error): delegate?.audioPlayerDecodeErrorDidOccur(self, error: error)
            default: break
            }
        }
    }

    public convenience init(contentsOf url: URL, fileTypeHint: String?) throws { try self.init(contentsOf: url) }

    deinit {
        listener.map { filePlayer.removeObserver($0) }
        filePlayer.stop()
        SharedPlayback.shared.remove(node)
    }

    public var numberOfChannels: Int { Int(format.channelCount) }
    public var duration: Double { filePlayer.duration }
    public var isPlaying: Bool { filePlayer.isPlaying }

    /// Seconds into the file; setting it moves the playhead.
    public var currentTime: Double {
        get { filePlayer.currentTime }
        set { try? filePlayer.seek(toSeconds: max(0, newValue)) }
    }

    /// The shared engine's clock in seconds, for `play(atTime:)`.
    public var deviceCurrentTime: Double { SharedPlayback.shared.deviceTime }

    /// Extra passes after the first; −1 loops until `stop`.
    public var numberOfLoops: Int {
        get { filePlayer.loopCount }
        set { filePlayer.loopCount = newValue }
    }

    /// 0 ... 1, on the player's mixer input.
    public var volume: Float {
        get { SharedPlayback.shared.locked { node.volume } }
        set {
            fade = nil
            setNodeVolume(newValue)
        }
    }

    private func setNodeVolume(_ volume: Float) {
        SharedPlayback.shared.locked { node.volume = min(max(volume, 0), 1) }
    }

    /// Moves the volume to `volume` over `duration` seconds, in steps of 10 ms.
    public func setVolume(_ volume: Float, fadeDuration duration: Double) {
        guard duration > 0 else { return self.volume = volume }
        let fade = Fade(from: self.volume, to: min(max(volume, 0), 1), seconds: duration)
        self.fade = fade
        Thread.detachNewThread { [weak self] in
            while let self, self.fade === fade, let next = fade.next() {
                self.setNodeVolume(next)
                Thread.sleep(forTimeInterval: Fade.step)
            }
        }
    }

    /// −1 (left) ... 1 (right), on the player's mixer input.
    public var pan: Float {
        get { SharedPlayback.shared.locked { node.pan } }
        set { SharedPlayback.shared.locked { node.pan = min(max(newValue, -1), 1) } }
    }

    /// Whether `rate` applies; set it before `prepareToPlay` or `play`, as in AVFAudio.
    public var enableRate = false

    /// 0.5 ... 2, at the same pitch (Rubber Band); ignored unless `enableRate`.
    public var rate: Float = 1 {
        didSet { if enableRate { filePlayer.rate = Double(min(max(rate, 0.5), 2)) } }
    }

    public var isMeteringEnabled: Bool {
        get { SharedPlayback.shared.metering }
        set { SharedPlayback.shared.metering = newValue }
    }

    private var meters: (peak: Float, average: Float) = (-160, -160)

    /// Reads the levels `peakPower` and `averagePower` then report.
    public func updateMeters() {
        meters = SharedPlayback.shared.levels(of: node)
    }

    /// dBFS of the player's loudest sample lately (−160 is silence), over all its
    /// channels: Trellis meters a mixer input as one.
    public func peakPower(forChannel channelNumber: Int) -> Float { meters.peak }

    /// dBFS of the player's RMS lately, over all its channels.
    public func averagePower(forChannel channelNumber: Int) -> Float { meters.average }

    /// Puts the player on the shared engine and reads ahead; true when it can play.
    @discardableResult
    public func prepareToPlay() -> Bool {
        do {
            try SharedPlayback.shared.add(node)
            if enableRate { filePlayer.rate = Double(min(max(rate, 0.5), 2)) }
            try filePlayer.prepare()
            return true
        } catch {
            return false
        }
    }

    @discardableResult
    public func play() -> Bool {
        guard prepareToPlay() else { return false }
        do { try filePlayer.play() } catch { return false }
        return true
    }

    /// Starts at `time` on the `deviceCurrentTime` clock: players given one time start
    /// on one frame.
    @discardableResult
    public func play(atTime time: Double) -> Bool {
        guard prepareToPlay() else { return false }
        do { try filePlayer.play(atSampleTime: SharedPlayback.shared.sampleTime(at: time)) } catch { return false }
        return true
    }

    /// Holds the position; `play` resumes.
    public func pause() { try? filePlayer.pause() }

    /// Stops playing and keeps the position, as Apple's does; `currentTime = 0` rewinds.
    public func stop() {
        let position = filePlayer.currentFrame
        filePlayer.stop()
        try? filePlayer.seek(toFrame: position)
    }
}

/// A linear volume ramp in 10 ms steps.
final class Fade: Sendable {
    static let step = 0.01
    private let from: Float, to: Float, steps: Int
    private let done = Atomic<Int>(0)

    init(from: Float, to: Float, seconds: Double) {
        self.from = from
        self.to = to
        steps = max(1, Int((seconds / Self.step).rounded()))
    }

    /// The next volume, nil once the ramp has arrived.
    func next() -> Float? {
        let step = done.add(1, ordering: .relaxed).newValue
        guard step <= steps else { return nil }
        return from + (to - from) * Float(step) / Float(steps)
    }
}

/// The engine every `AVAudioPlayer` of the process plays on, started live with the first.
final class SharedPlayback: @unchecked Sendable {
    static let shared = SharedPlayback()
    private let lock = NSLock()
    let engine = AVAudioEngine()

    func add(_ node: FilePlayerNode) throws {
        try lock.withLock {
            guard node.engine == nil else { return }
            engine.attach(node)
            engine.connect(node, to: engine.mainMixerNode, format: node.outputFormat(forBus: 0))
            if !engine.isRunning { try engine.start() }
            try engine.initialize()
        }
    }

    /// Runs `body` with the engine to itself: players on other threads edit it too.
    func locked<T>(_ body: () throws -> T) rethrows -> T { try lock.withLock(body) }

    func remove(_ node: FilePlayerNode) {
        lock.withLock { engine.detach(node) }
    }

    var metering: Bool {
        get { lock.withLock { engine.mainMixerNode.value("metering") != 0 } }
        set { lock.withLock { engine.mainMixerNode.set("metering", newValue ? 1 : 0) } }
    }

    func levels(of node: FilePlayerNode) -> (peak: Float, average: Float) {
        lock.withLock {
            guard let bus = engine.outputConnectionPoints(for: node, outputBus: 0).first?.bus else { return (-160, -160) }
            return (engine.mainMixerNode.value("in\(bus).peak"), engine.mainMixerNode.value("in\(bus).average"))
        }
    }

    var deviceTime: Double {
        lock.withLock { engine.lastRenderTime.map { Double($0.sampleTime) / engine.graph.sampleRate } ?? 0 }
    }

    func sampleTime(at seconds: Double) -> Int64 {
        lock.withLock { Int64((seconds * engine.graph.sampleRate).rounded()) }
    }

    var sampleRate: Double { lock.withLock { engine.graph.sampleRate } }

    var liveSettings: BackendSettings? { lock.withLock { engine.liveSettings } }

    var channels: (input: Int, output: Int) {
        lock.withLock {
            (engine.hasInputNode ? Int(engine.inputNode.outputFormat(forBus: 0).channelCount) : 0,
             Int(engine.outputNode.inputFormat(forBus: 0).channelCount))
        }
    }

    /// Runs the engine live, with capture ports when `recording`.
    func activate(recording: Bool) throws {
        try lock.withLock {
            if recording && !engine.hasInputNode {
                _ = engine.inputNode
                engine.stop()
            }
            if !engine.isRunning { try engine.start() }
        }
    }

    func deactivate() { lock.withLock { engine.stop() } }

    /// A recorder watching the engine's input node, which joins the engine (and, when the
    /// engine runs without capture ports, restarts it with them).
    func watchInput() throws -> (FileRecorder, ObserverTokenBox) {
        try lock.withLock {
            let hadInput = engine.hasInputNode
            let input = engine.inputNode
            if engine.isRunning && !hadInput {
                engine.stop()
            }
            if !engine.isRunning { try engine.start() }
            let channels = Int(input.outputFormat(forBus: 0).channelCount)
            let recorder = FileRecorder(channelCount: channels, sampleRate: engine.graph.sampleRate)
            guard let id = input.nodeID else { throw AVAudioError(.graph, "the engine has no input node") }
            let added: Result<ObserverToken, GraphError> = engine.edit {
                do throws(GraphError) { return .success(try engine.graph.addObserver(recorder, node: id, bus: 0)) } catch { return .failure(error) }
            }
            switch added {
            case .success(let token): return (recorder, ObserverTokenBox(token: token))
            case .failure(let error): throw AVAudioError(.graph, "recording the input: \(error)")
            }
        }
    }

    func stopWatching(_ box: ObserverTokenBox) {
        lock.withLock { engine.edit { _ = try? engine.graph.removeObserver(box.token) } }
    }
}

/// An observer's token, kept by the recorder that watches.
struct ObserverTokenBox {
    let token: ObserverToken
}
