import Synchronization
import TrellisAudioFile
import TrellisCore
import TrellisEngine

/// Records its input bus to a file: AVAudioRecorder as a unit. One input bus and one
/// output bus that passes the input through, so it can sit in a chain; or install it
/// with `graph.addObserver(recorder, node:, bus:)` to record any bus without being in
/// its path (then give it the graph's sample rate at init, since no graph configures it).
///
/// Threads: the render thread copies input frames into a preallocated ring (about two
/// seconds); the butler (see `MediaThreads`) drains the ring into the file, converting
/// channels and rate; control starts, pauses and stops. A write failure (a full disk)
/// is reported and the audio keeps flowing. A container that cannot hold the asked
/// encoding is refused by `prepareToRecord`, before anything is created.
///
/// Offline rendering: call `waitForStreaming(frameCount:)` before every cycle (the
/// `OfflineStreaming` hook) so the ring never overflows, and `stop()` after the last.
public final class FileRecorder: AudioUnitBase, BusObserver, OfflineStreaming, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.output, subtype: "rcrd", manufacturer: Manufacturer.trellis)
    static let slotFrames = 256

    /// What the recorder is doing, as the control side sees it.
    public enum State: String, Sendable { case idle, prepared, recording, paused }

    // Shared by control, butler and notifier; guarded by `lock`.
    let lock = Mutex(())
    var stream: RecorderStream?
    var diskRing: FrameRing?
    var state = State.idle
    var takeCounter: UInt64 = 0
    var lastFrames = 0
    var pendingNotifications: [RecorderNotification] = []
    var listeners: [Int: @Sendable (RecorderNotification) -> Void] = [:]
    var nextToken = 0

    // Between threads.
    let shared: UnsafeMutablePointer<RecorderShared>
    let events = SPSCRing<RecorderEvent>(capacity: 256)

    /// Peak and average power of the input, as AVAudioRecorder meters.
    public let meter: MeterKernel

    /// The render side, for the unit's kernel and the observer's; lives as long as the
    /// recorder, since a graph may watch a bus with it before it is initialized.
    let kernel: UnsafeMutablePointer<RecorderKernel>
    /// The kernel and the shared cells, for as long as the recorder lives.
    private let memory = Arena(firstBlock: 1024)
    /// The ring, while the recorder is initialized.
    private var ringMemory: Arena?

    /// A recorder of `channelCount` channels at `sampleRate` (a graph sets the rate of
    /// its nodes itself). Thread: control.
    public init(channelCount: Int = 2, sampleRate: Double = 48_000) {
        let meter = MeterKernel(channelCount: channelCount)
        self.meter = meter
        shared = memory.place(RecorderShared(fence: RenderFence(at: memory.takeAtomics(1, initial: 0))))
        kernel = memory.place(RecorderKernel(shared: shared, events: events.end, meter: meter.banks))
        super.init(description: Self.componentDescription, shortName: "recorder", inputs: [channelCount], outputs: [channelCount])
        if sampleRate != 48_000 { try? setSampleRate(sampleRate) }
    }

    // MARK: - Control

    /// Creates the file for a recording with `settings`, refusing (before anything is
    /// created) a container that cannot hold the encoding, and a rate or channel count
    /// that cannot be written. Initializes the unit if nothing has yet. Thread: control.
    public func prepareToRecord(path: String, settings: RecordingSettings = RecordingSettings()) throws(MediaError) {
        let file = try fileParameters(path: path, settings: settings)
        try lock.withLock { _ throws(MediaError) in
            guard state == .idle else { throw .invalidSettings("a recording is already prepared or running", unit: name) }
            let writer: AudioFileWriter
            do throws(AudioFileError) {
                writer = try AudioFileWriter(
                    path: path, container: file.container, sampleType: file.sampleType, sampleRate: file.sampleRate, channelCount: file.channels,
                    dither: settings.dither, quality: settings.quality)
            } catch {
                throw .file(error, unit: name)
            }
            let busFormat = file.bus
            takeCounter += 1
            stream = try RecorderStream(writer: writer, busRate: busFormat.sampleRate, busChannels: busFormat.channelCount, take: takeCounter, unitName: name)
            state = .prepared
        }
        MediaThreads.butler.add(self) { $0.serviceDisk() }
        MediaThreads.notifier.add(self) { $0.deliverNotifications() }
    }

    /// Checks everything `prepareToRecord` would, creating and truncating nothing, so a
    /// session can check all its recorders before it replaces any take. Thread: control.
    public func checkRecording(path: String, settings: RecordingSettings = RecordingSettings()) throws(MediaError) {
        let file = try fileParameters(path: path, settings: settings)
        do throws(AudioFileError) {
            try AudioFileWriter.check(path: path, container: file.container, sampleType: file.sampleType, sampleRate: file.sampleRate, channelCount: file.channels)
        } catch {
            throw .file(error, unit: name)
        }
    }

    private func fileParameters(path: String, settings: RecordingSettings) throws(MediaError)
        -> (bus: StreamFormat, container: AudioFileContainer, sampleType: SampleType, sampleRate: Double, channels: Int)
    {
        let busFormat: StreamFormat
        do throws(AudioUnitError) {
            busFormat = try format(scope: .input, element: 0)
            if !isInitialized { try initialize() }
        } catch {
            throw .invalidSettings("\(error)", unit: name)
        }
        guard let container = settings.container ?? AudioFileContainer(path: path) else {
            throw .file(.unsupportedContainer(path: path, found: "the path's extension"), unit: name)
        }
        let sampleType = try settings.sampleType(in: container, path: path, unit: name)
        return (busFormat, container, sampleType, settings.sampleRate ?? busFormat.sampleRate, settings.channelCount ?? busFormat.channelCount)
    }

    /// Starts recording at graph time `sampleTime` (nil: the next cycle), for
    /// `frameCount` frames of the bus (nil: until `stop`); resumes a paused recording
    /// (the time and length then stay as first given). Thread: control.
    public func record(atSampleTime sampleTime: Int64? = nil, frameCount: Int? = nil) throws(MediaError) {
        try lock.withLock { _ throws(MediaError) in
            switch state {
            case .idle: throw .notPrepared(unit: name)
            case .recording: return
            case .paused: break
            case .prepared:
                guard let stream else { throw .notPrepared(unit: name) }
                shared.pointee.startTime.store(sampleTime ?? .min, ordering: .relaxed)
                shared.pointee.frameLimit.store(frameCount.map { Int64(max(0, $0)) } ?? -1, ordering: .relaxed)
                shared.pointee.take.store(stream.take, ordering: .relaxed)
            }
            state = .recording
            shared.pointee.renderState.store(1, ordering: .sequentiallyConsistent)
        }
    }

    /// As `record(atSampleTime:frameCount:)` with a duration in seconds of the bus.
    /// Thread: control.
    public func record(atSampleTime sampleTime: Int64? = nil, forDuration seconds: Double) throws(MediaError) {
        try record(atSampleTime: sampleTime, frameCount: Int((seconds * sampleRate).rounded()))
    }

    /// Stops taking frames until `record` resumes. Thread: control.
    public func pause() {
        lock.withLock { _ in
            guard state == .recording else { return }
            state = .paused
            shared.pointee.renderState.store(2, ordering: .sequentiallyConsistent)
        }
    }

    /// Ends the recording: waits out the render call in progress, writes what the ring
    /// holds, closes the file. Returns the frames in the file; throws the first write or
    /// close failure (the file then holds what was written before it). Thread: control.
    @discardableResult
    public func stop() throws(MediaError) -> Int {
        shared.pointee.renderState.store(0, ordering: .sequentiallyConsistent)
        shared.pointee.fence.waitForRenderToLeave()
        let result: (frames: Int, error: MediaError?)? = lock.withLock { _ in
            guard let stream else { return nil }
            if let ring = diskRing, let failure = stream.drain(ring).newFailure {
                pendingNotifications.append(.writeFailed(failure))
            }
            return finishStream(stream)
        }
        MediaThreads.notifier.wake()
        guard let result else { return lock.withLock { _ in lastFrames } }
        if let error = result.error { throw error }
        return result.frames
    }

    /// Thread: any but audio.
    public var recorderState: State { lock.withLock { _ in state } }

    /// Thread: any but audio.
    public var isRecording: Bool { recorderState == .recording }

    /// Frames in the file so far (the last file's after it closed). Thread: any but audio.
    public var framesWritten: Int { lock.withLock { _ in stream?.framesWritten ?? lastFrames } }

    /// Frames the ring had no room for. Thread: any.
    public var overrunFrames: Int { shared.pointee.droppedFrames.load(ordering: .relaxed) }

    /// Calls `handler` on the notifier thread with write failures, overruns and the
    /// end of each recording. Thread: control.
    @discardableResult
    public func addListener(_ handler: @escaping @Sendable (RecorderNotification) -> Void) -> MediaListenerToken {
        let token = lock.withLock { _ in
            nextToken += 1
            listeners[nextToken] = handler
            return MediaListenerToken(rawValue: nextToken)
        }
        MediaThreads.notifier.add(self) { $0.deliverNotifications() }
        return token
    }

    /// Thread: control.
    public func removeListener(_ token: MediaListenerToken) {
        lock.withLock { _ in listeners[token.rawValue] = nil }
    }

    /// Closes the metering window (see `MeterKernel`). Thread: control.
    public func updateMeters() { meter.update() }
    /// Thread: any.
    public func peakPower(forChannel channel: Int) -> Float { meter.peakPower(forChannel: channel) }
    /// Thread: any.
    public func averagePower(forChannel channel: Int) -> Float { meter.averagePower(forChannel: channel) }

    // MARK: - Life cycle

    public override func validateConfiguration() throws(AudioUnitError) {
        let input = try format(scope: .input, element: 0), output = try format(scope: .output, element: 0)
        guard input.channelCount == output.channelCount else {
            throw .failedToInitialize("input has \(input.channelCount) channels, output \(output.channelCount)", unit: name)
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try format(scope: .input, element: 0).channelCount
        let slotFrames = Self.slotFrames
        let slotsForTwoSeconds = Int((2 * sampleRate / Double(slotFrames)).rounded(.up))
        let slotsForSlices = 4 * ((maximumFramesPerSlice + slotFrames - 1) / slotFrames)
        let memory = Arena()
        ringMemory = memory
        let made = FrameRing(slotCount: max(slotsForTwoSeconds, slotsForSlices), frameCapacity: slotFrames, channelCount: channels, in: memory)
        kernel.pointee.ring = made
        kernel.pointee.currentTake = 0
        lock.withLock { _ in diskRing = made }
    }

    /// Uninitializing ends a recording. Thread: control, not while rendering.
    public override func deallocateRenderResources() {
        _ = try? stop()
        lock.withLock { _ in diskRing = nil }
        kernel.pointee.ring = nil
        ringMemory = nil
    }

    /// Thread: control.
    public override var renderKernel: RenderKernel? {
        RenderKernel(state: UnsafeMutableRawPointer(kernel), render: { RecorderKernel.render($0, $1) }, reset: { _ in })
    }

    /// The program runs the recorder's kernel directly. Thread: control.
    public var observerKernel: ObserverKernel {
        ObserverKernel(state: UnsafeMutableRawPointer(kernel), observe: { RecorderKernel.observe($0, $1) })
    }

    /// Records a slice outside a program. Thread: audio.
    public func observe(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        kernel.pointee.capture(bus, frameCount: frameCount, timeStamp: timeStamp)
    }

    // MARK: - Helpers (lock held)

    /// Closes the file and reports the end of the recording.
    func finishStream(_ stream: RecorderStream) -> (frames: Int, error: MediaError?) {
        let error = stream.finish()
        let frames = stream.framesWritten
        self.stream = nil
        lastFrames = frames
        state = .idle
        shared.pointee.renderState.store(0, ordering: .sequentiallyConsistent)
        pendingNotifications.append(.finished(frames: frames, error: error))
        return (frames, error)
    }
}
