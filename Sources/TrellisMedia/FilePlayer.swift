import Synchronization
import TrellisAudioFile
import TrellisCore
import TrellisEngine

/// Plays a file from disk: Core Audio's file player unit with AVAudioPlayer's controls.
/// No inputs; one output bus with the file's channel count (or the count given at init).
///
/// Threads: the butler (see `MediaThreads`) reads the file ahead into a preallocated
/// ring of about `bufferDuration` seconds; the render thread only copies out of the
/// ring, so it never touches the disk. Seeks and stops bump a generation number so
/// audio already in the ring for the old position is skipped. Transport commands reach
/// the render thread through a lock-free ring; time updates, end of file and underruns
/// leave it through another and are delivered on the notifier thread.
///
/// Output: volume (linear, 0...1) times a balance pan on stereo output (at 0 both
/// channels pass unchanged; toward one side the other channel fades to silence), both
/// smoothed. A file of another sample rate is converted with libsoxr on the butler.
/// A file's channels meet the bus as the graph maps them (mono to all, many to mono
/// averaged, else channel by channel).
///
/// Offline rendering: call `waitForStreaming(frameCount:)` (the `OfflineStreaming`
/// hook) before every cycle, on the rendering thread; then the output never underruns.
public final class FilePlayer: AudioUnitBase, OfflineStreaming, RateSource, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.generator, subtype: BuiltInSubtype.filePlayer, manufacturer: Manufacturer.trellis)
    public static let volumeParameter = ParameterAddress(0)
    public static let panParameter = ParameterAddress(1)
    public static let rateParameter = ParameterAddress(2)
    public static let varispeedParameter = ParameterAddress(3)
    /// AVAudioPlayer's range is 0.5...2; the resampler takes a wider one.
    public static let rateRange: ClosedRange<Float> = 0.25...4
    static let slotFrames = 1024

    /// What the transport is doing, as the control side sees it.
    public enum State: String, Sendable { case stopped, playing, paused }

    struct TimeObserver {
        var interval: Double
        var handler: @Sendable (PlayerTime) -> Void
    }

    /// Seconds of audio the butler keeps ahead of the render thread. Thread: control,
    /// while uninitialized.
    public var bufferDuration: Double = 1.5

    private let followsFile: Bool

    // Shared by control, butler and notifier; guarded by `lock`. Never the render thread.
    let lock = Mutex(())
    var path: String?
    var info: AudioFileInfo?
    var loadedReader: AudioFileReader?
    var stream: PlayerStream?
    var diskRing: FrameRing?
    var outputRate: Double = 48_000
    var generationCounter: UInt64 = 0
    /// The file frame playing starts from when (re)prepared.
    var target = 0
    /// The rate asked for (file time per output time), applied to the stream.
    var speed: Double = 1
    var varispeed = false
    var followed: RateRequest?
    var state = State.stopped
    var diskErrors: [MediaError] = []
    /// Damage the butler found and the notifier has not reported yet, and what was.
    var newDamage: AudioFileDamage?
    var reportedDamage = AudioFileDamage()
    /// The most the file's readers have found damaged since it was loaded (`damage`).
    var foundDamage = AudioFileDamage()
    var listeners: [Int: @Sendable (PlayerNotification) -> Void] = [:]
    var timeObservers: [Int: TimeObserver] = [:]
    var nextToken = 0
    var lastPlayed: Int64 = 0

    // Between threads.
    let shared: UnsafeMutablePointer<PlayerShared>
    /// The shared cells, for as long as the player lives.
    private let memory = Arena(firstBlock: 1024)
    let filledGeneration = Atomic<UInt64>(0)
    let loops = Atomic<Int>(0)
    let commands = SPSCRing<PlayerCommand>(capacity: 256)
    let commandProducer = Mutex(())
    let events = SPSCRing<PlayerEvent>(capacity: 1024)

    /// The render side while initialized.

    /// `channelCount` fixes the output's width; nil follows each loaded file's (while
    /// the unit is uninitialized), starting at 2. Thread: control.
    public init(channelCount: Int? = nil) {
        followsFile = channelCount == nil
        shared = memory.place(PlayerShared())
        super.init(description: Self.componentDescription, shortName: "player", inputs: [], outputs: [channelCount ?? 2])
        declareParameter(ParameterInfo(
            address: Self.volumeParameter, identifier: "volume", name: "Volume", unit: .linearGain,
            range: 0...1, defaultValue: 1, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(
            address: Self.panParameter, identifier: "pan", name: "Pan", unit: .pan,
            range: -1...1, defaultValue: 0, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(
            address: Self.rateParameter, identifier: "rate", name: "Rate", unit: .ratio,
            range: Self.rateRange, defaultValue: 1, flags: [.readable, .writable]))
        declareParameter(ParameterInfo(
            address: Self.varispeedParameter, identifier: "varispeed", name: "Varispeed (rate moves pitch)", unit: .boolean,
            range: 0...1, defaultValue: 0, flags: [.readable, .writable, .toggled]))
        // A rate set while rendering goes to the kernel, which leaves it to the disk side.
        addParameterListener { [weak self] info, value in
            if info.address == Self.rateParameter { try? self?.change(\.speed, to: value.decimal) }
            if info.address == Self.varispeedParameter { try? self?.change(\.varispeed, to: value >= 0.5) }
        }
    }

    /// Plays `rate` times as fast at the same pitch, as AVAudioPlayer's `rate` does: the
    /// butler stretches the file with Rubber Band (in an offline render playing once, the
    /// whole file at once, so its length is exactly the file's over the rate). With
    /// `varispeed` on, the pitch moves with the rate instead: the file is read through
    /// the resampler at its rate times `rate`. A change while playing takes effect at
    /// once from the frame playing, as a seek does. Positions, time events and
    /// boundaries stay in file time. Thread: control.
    public var rate: Double {
        get { lock.withLock { _ in speed } }
        set {
            let clamped = min(Double(Self.rateRange.upperBound), max(Double(Self.rateRange.lowerBound), newValue))
            try? setParameter(Self.rateParameter, Float(clamped))
        }
    }

    /// Sets the rate or the varispeed mode, applies it under the lock, then wakes the
    /// butler to refill at the new speed.
    private func change<Value: Equatable>(_ setting: ReferenceWritableKeyPath<FilePlayer, Value>, to value: Value) throws(MediaError) {
        try lock.withLock { _ throws(MediaError) in
            guard self[keyPath: setting] != value else { return }
            self[keyPath: setting] = value
            try applySpeed()
        }
        MediaThreads.butler.wake()
    }

    /// An offline render stretches exactly; a live one streams.
    public override func offlineRenderDidChange() {
        try? lock.withLock { _ throws(MediaError) in try applySpeed() }
    }

    /// Gives the stream the rate and mode, from the frame playing. Lock held.
    private func applySpeed() throws(MediaError) {
        finishIfEnded()
        guard let stream else { return }
        let wanted = streamSpeed
        guard stream.speed != wanted.rate || stream.cents != wanted.cents || stream.varispeed != wanted.varispeed
                || stream.exact != wanted.exact else { return }
        let frame = currentFrameLocked()
        try stream.setSpeed(wanted.rate, cents: wanted.cents, varispeed: wanted.varispeed, exact: wanted.exact)
        try restart(stream, atFileFrame: frame)
        target = frame
    }

    /// The player's own rate with what a time-changing unit it feeds asks. Lock held.
    private var streamSpeed: (rate: Double, cents: Double, varispeed: Bool, exact: Bool) {
        let keepsPitch = followed?.keepsPitch ?? !varispeed
        var rate = speed * (followed?.rate ?? 1), cents = followed?.cents ?? 0
        if !keepsPitch {
            rate *= _exp2(cents / 1200)
            cents = 0
        }
        // The exact stretch holds the file in memory: up to 2^26 samples (256 MB, 11 min of stereo at 48 kHz).
        let small = info.map { $0.frameCount * $0.channelCount <= 1 << 26 } ?? false
        return (rate, cents, !keepsPitch, isOfflineRender && loopCount == 0 && small)
    }

    /// File time per output time: `rate` times what a time-pitch or varispeed unit this
    /// player feeds asks. Thread: control.
    public var effectiveRate: Double { lock.withLock { _ in streamSpeed.rate } }

    /// What the time-pitch or varispeed unit this player feeds asks (see `RateFollowing`).
    /// Thread: control.
    public func follow(_ request: RateRequest?) {
        try? lock.withLock { _ throws(MediaError) in
            guard request != followed else { return }
            followed = request
            try applySpeed()
        }
        MediaThreads.butler.wake()
    }

    // MARK: - Loading

    /// Opens a file and makes it the player's; a player that was playing stops. While
    /// uninitialized, a player made without a channel count takes the file's.
    /// Thread: control.
    public func load(path: String) throws(MediaError) {
        let reader: AudioFileReader
        do { reader = try AudioFileReader(path: path) } catch { throw .file(error, unit: name) }
        stop()
        if followsFile && !isInitialized, reader.info.channelCount != (try? format(scope: .output, element: 0).channelCount) {
            var format = (try? format(scope: .output, element: 0)) ?? .canonical(sampleRate: sampleRate, channelCount: 2)
            format.channelCount = reader.info.channelCount
            do { try setFormat(format, scope: .output, element: 0) } catch { throw .invalidSettings("\(error)", unit: name) }
        }
        lock.withLock { _ in
            self.path = path
            info = reader.info
            // A header that claimed far more than the file holds is known at the open.
            foundDamage = AudioFileDamage(claimedFrames: reader.damage.claimedFrames)
            loadedReader?.close()
            loadedReader = reader
            target = 0
        }
    }

    /// What the loaded file holds, if one is loaded. Thread: any but audio.
    public var fileInfo: AudioFileInfo? { lock.withLock { _ in info } }

    // MARK: - Transport

    /// Opens the file for streaming and has the butler fill the ring from the current
    /// position; `play` does this itself when needed. `stop` undoes it. Thread: control.
    public func prepare() throws(MediaError) {
        guard isInitialized else { throw .notInitialized(unit: name) }
        try lock.withLock { _ throws(MediaError) in
            finishIfEnded()
            guard stream == nil else { return }
            guard let path, let ring = diskRing else { throw .noFileLoaded(unit: name) }
            let reader: AudioFileReader
            if let loadedReader {
                reader = loadedReader
                self.loadedReader = nil
            } else {
                do throws(AudioFileError) { reader = try AudioFileReader(path: path) } catch { throw .file(error, unit: name) }
            }
            let made = try PlayerStream(reader: reader, outputRate: outputRate, slotFrames: ring.frameCapacity)
            let wanted = streamSpeed
            try made.setSpeed(wanted.rate, cents: wanted.cents, varispeed: wanted.varispeed, exact: wanted.exact)
            shared.pointee.monoSource.store(reader.info.channelCount == 1, ordering: .relaxed)
            try restart(made, atFileFrame: target)
            stream = made
            reportedDamage = AudioFileDamage()
            shared.pointee.prepared.store(true, ordering: .releasing)
        }
        MediaThreads.butler.add(self) { $0.serviceDisk() }
        MediaThreads.notifier.add(self) { $0.deliverNotifications() }
    }

    /// Starts playing at graph time `sampleTime` (sample-exact; players given the same
    /// time start together), or at the next cycle when nil or already past. Resumes
    /// from a pause. Thread: control.
    public func play(atSampleTime sampleTime: Int64? = nil) throws(MediaError) {
        try prepare()
        try send(PlayerCommand(kind: .play, sampleTime: sampleTime ?? .min))
        lock.withLock { _ in state = .playing }
    }

    /// Holds the position; `play` resumes from it. Thread: control.
    public func pause() throws(MediaError) {
        guard lock.withLock({ _ in finishIfEnded(); return state == .playing }) else { return }
        try send(PlayerCommand(kind: .pause, sampleTime: .min))
        lock.withLock { _ in state = .paused }
    }

    /// Stops playing, goes back to the start of the file, and releases what `prepare`
    /// took (the open file, the converter, the audio read ahead), as AVAudioPlayerNode's
    /// stop does; `pause` is the one that keeps the position. Thread: control.
    public func stop() {
        let active = lock.withLock { _ in
            finishIfEnded()
            return stream != nil || state != .stopped
        }
        guard active else { return }
        // A full command ring only means nothing renders; releasing below silences it anyway.
        commandProducer.withLock { _ in _ = commands.push(PlayerCommand(kind: .stop, sampleTime: .min)) }
        lock.withLock { _ in
            finishIfEnded()
            target = 0
            release()
            state = .stopped
        }
    }

    /// Moves to `frame` of the file, exactly; playing continues from there as soon as
    /// the butler has read it. Thread: control.
    public func seek(toFrame frame: Int) throws(MediaError) {
        try lock.withLock { _ throws(MediaError) in
            guard let info, let path else { throw .noFileLoaded(unit: name) }
            guard (0...info.frameCount).contains(frame) else {
                throw .seekOutOfRange(frame: frame, frameCount: info.frameCount, path: path)
            }
            finishIfEnded()
            target = frame
            if let stream { try restart(stream, atFileFrame: frame) }
        }
        MediaThreads.butler.wake()
    }

    /// Moves to the frame nearest `seconds` into the file. Thread: control.
    public func seek(toSeconds seconds: Double) throws(MediaError) {
        guard let info = fileInfo else { throw .noFileLoaded(unit: name) }
        try seek(toFrame: min(info.frameCount, max(0, Int((seconds * info.sampleRate).rounded()))))
    }

    /// Extra passes after the first: 0 plays once, n plays n + 1 times, negative loops
    /// until stopped. Loops are gapless: the file's end runs into its start without a
    /// frame lost or added. The butler reads about `bufferDuration` ahead, so a change
    /// applies to the passes it has not read yet. Thread: any.
    public var loopCount: Int {
        get { loops.load(ordering: .relaxed) }
        set { loops.store(newValue, ordering: .relaxed) }
    }

    /// Thread: any but audio.
    public var transportState: State { lock.withLock { _ in finishIfEnded(); return state } }

    /// Thread: any but audio.
    public var isPlaying: Bool { transportState == .playing }

    /// The file frame playing now (or where playing will start). Thread: any but audio.
    public var currentFrame: Int { lock.withLock { _ in finishIfEnded(); return currentFrameLocked() } }

    /// The same in seconds. Thread: any but audio.
    public var currentTime: Double {
        let frame = currentFrame
        return Double(frame) / (fileInfo?.sampleRate ?? outputRate)
    }

    /// Length of the loaded file in seconds. Thread: any but audio.
    public var duration: Double { fileInfo?.duration ?? 0 }

    /// Times the render thread found the ring empty while playing. Thread: any.
    public var underruns: Int { shared.pointee.underrunCount.load(ordering: .relaxed) }

    /// True once the butler has filled the ring for the current position (or read to
    /// the end of the file). Thread: any.
    public var isReady: Bool {
        let wanted = shared.pointee.wantedGeneration.load(ordering: .acquiring)
        return shared.pointee.prepared.load(ordering: .acquiring) && wanted != 0 && filledGeneration.load(ordering: .acquiring) == wanted
    }

    /// Waits until `isReady`, up to `timeout` seconds; returns whether it got there.
    /// Live prefill before `play`. Thread: control.
    @discardableResult
    public func waitUntilReady(timeout: Double = 5) -> Bool {
        let deadline = HostClock.now() + UInt64(timeout * 1e9)
        while !isReady {
            if HostClock.now() > deadline { return false }
            MediaThreads.butler.wake()
            sleepBriefly()
        }
        return true
    }

    /// What the file's decoder found damaged since it was loaded: frames read as silence
    /// in place of damaged audio. Thread: any but audio (waits for a butler pass).
    public var damage: AudioFileDamage { lock.withLock { _ in foundDamage } }

    // MARK: - Notifications

    /// Calls `handler` on the notifier thread with end of file, underruns, damaged frames and read
    /// failures. Thread: control.
    @discardableResult
    public func addListener(_ handler: @escaping @Sendable (PlayerNotification) -> Void) -> MediaListenerToken {
        let token = lock.withLock { _ in
            nextToken += 1
            listeners[nextToken] = handler
            // Damage the butler found reading ahead is told again, so a listener added
            // after it (at start, before the first cycle) still hears of it.
            reportedDamage = AudioFileDamage()
            return MediaListenerToken(rawValue: nextToken)
        }
        MediaThreads.notifier.add(self) { $0.deliverNotifications() }
        MediaThreads.butler.wake()
        return token
    }

    /// Calls `handler` on the notifier thread every `interval` seconds of playing, with
    /// where the player is. Thread: control.
    @discardableResult
    public func addTimeObserver(interval: Double, _ handler: @escaping @Sendable (PlayerTime) -> Void) -> MediaListenerToken {
        let token = lock.withLock { _ in
            nextToken += 1
            timeObservers[nextToken] = TimeObserver(interval: interval, handler: handler)
            updateTimeInterval()
            return MediaListenerToken(rawValue: nextToken)
        }
        MediaThreads.notifier.add(self) { $0.deliverNotifications() }
        return token
    }

    /// Thread: control.
    public func removeObserver(_ token: MediaListenerToken) {
        lock.withLock { _ in
            listeners[token.rawValue] = nil
            timeObservers[token.rawValue] = nil
            updateTimeInterval()
        }
    }

    // MARK: - Life cycle

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try format(scope: .output, element: 0).channelCount
        let slotFrames = Self.slotFrames
        let wanted = max(bufferDuration * sampleRate, Double(2 * maximumFramesPerSlice))
        let slots = max(4, Int((wanted / Double(slotFrames)).rounded(.up)) + 1)
        let (shared, commands, events) = (shared, commands.end, events.end)
        // The ring lives in the kernel's storage: it goes when the kernel goes.
        let storage = KernelStorage(render: { FilePlayerKernel.render($0, $1) }, reset: { FilePlayerKernel.reset($0) }) { memory in
            FilePlayerKernel(ring: FrameRing(slotCount: slots, frameCapacity: slotFrames, channelCount: channels, in: memory),
                             shared: shared, commands: commands, events: events)
        }
        kernelStorage = storage
        let made = storage.pointer.pointee.ring
        lock.withLock { _ in
            diskRing = made
            outputRate = sampleRate
            updateTimeInterval()
        }
    }

    /// Uninitializing stops the player. Thread: control, not while rendering.
    public override func deallocateRenderResources() {
        stop()
        lock.withLock { _ in diskRing = nil }
        kernelStorage = nil
        while commands.pop() != nil {}
    }

    /// Thread: control.

    /// Thread: control, while no program runs the kernel.
    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        if index == 2 {
            try? change(\.speed, to: value.decimal)
            return
        }
        if index == 3 {
            try? change(\.varispeed, to: value >= 0.5)
            return
        }
        let frames = isInitialized ? (rampFrames > 0 ? rampFrames : 64) : 0
        storedKernel(as: FilePlayerKernel.self)?.pointee.setGain(index: index, value: value, frames: frames)
    }

    // MARK: - Helpers (lock held)

    /// Repositions the stream under a new generation, so the render thread skips what
    /// the ring holds for the old position.
    func restart(_ stream: PlayerStream, atFileFrame frame: Int) throws(MediaError) {
        generationCounter += 1
        do { try stream.restart(atFileFrame: frame, generation: generationCounter) } catch {
            throw .file(error, unit: name)
        }
        shared.pointee.wantedGeneration.store(generationCounter, ordering: .releasing)
    }

    /// Drops the stream (closing the file) and makes the ring's contents stale.
    func release() {
        stream = nil
        shared.pointee.prepared.store(false, ordering: .releasing)
        generationCounter += 1
        shared.pointee.wantedGeneration.store(generationCounter, ordering: .releasing)
    }

    /// If the render thread has played the current stream to its end: back to the start,
    /// stopped, released (as AVAudioPlayer after it finishes).
    func finishIfEnded() {
        guard stream != nil, shared.pointee.endedGeneration.load(ordering: .acquiring) == generationCounter else { return }
        release()
        target = 0
        state = .stopped
    }

    func currentFrameLocked() -> Int {
        guard stream != nil, shared.pointee.publishedGeneration.load(ordering: .acquiring) == generationCounter,
              let info else { return target }
        let position = shared.pointee.publishedPosition.load(ordering: .relaxed)
        let frame = info.sampleRate == outputRate ? Int(position) : Int((Double(position) * info.sampleRate / outputRate).rounded())
        return min(info.frameCount, max(0, frame))
    }

    func intervalFrames(_ observer: TimeObserver) -> Int {
        max(1, Int((observer.interval * outputRate).rounded()))
    }

    func updateTimeInterval() {
        shared.pointee.timeInterval.store(timeObservers.values.map(intervalFrames).min() ?? 0, ordering: .relaxed)
    }

    private func send(_ command: PlayerCommand) throws(MediaError) {
        let sent = commandProducer.withLock { _ in commands.push(command) }
        guard sent else { throw .renderNotKeepingUp(unit: name) }
    }
}
