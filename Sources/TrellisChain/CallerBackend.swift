import Synchronization
import TrellisCore
import TrellisGraph

/// A backend whose cycles run when its caller hands it buffers: `start` prepares the
/// source and returns; each `render` call then runs cycles on the caller's thread, as
/// the offline backend runs them, at consecutive sample times from 0. Slices fall on a
/// grid of the prepared slice length from frame 0 and are also cut at the ends of a
/// call, so one call renders exactly as `trellis chain` does.
///
/// Thread: one caller at a time (the owner of the chain).
public final class CallerBackend: AudioBackend, @unchecked Sendable {
    private let source: any RenderSource
    private let prepare: BackendPrepare
    private let prepared: BackendSettings
    private let started = Atomic<Bool>(false)
    /// Runs between slices, outside the audio-thread role (the graph re-compensates a
    /// latency that changed, as an offline render does).
    private let betweenSlices: () throws(GraphError) -> Void
    private var entry: RenderEntry?
    /// Frames rendered since the start: the next cycle's sample time. Kept in plain
    /// memory so a real-time caller driving `renderEntry` itself can advance it.
    public let position: UnsafeMutablePointer<Int64>
    private let inputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let memory = Arena()
    private let inputChannels: Int
    private let outputChannels: Int

    public init(
        source: any RenderSource, settings: BackendSettings, prepare: @escaping BackendPrepare, inputChannels: Int, outputChannels: Int,
        betweenSlices: @escaping () throws(GraphError) -> Void
    ) {
        self.source = source
        self.prepare = prepare
        self.betweenSlices = betweenSlices
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        prepared = settings
        position = memory.take(1, repeating: 0)
        inputTable = memory.take(inputChannels)
        outputTable = memory.take(outputChannels)
    }

    public var settings: BackendSettings? { started.load(ordering: .acquiring) ? prepared : nil }

    /// Frames rendered since the start.
    public var framesRendered: Int64 { position.pointee }

    /// The source's plain render entry once started, for a caller that renders on a
    /// real-time thread of its own (it then keeps `position`).
    public var renderEntry: RenderEntry? { entry }

    public func start() throws(CommandError) {
        do { try prepare(prepared) } catch { throw CommandError("preparing the chain failed: \(error)") }
        entry = source.renderEntry
        position.pointee = 0
        started.store(true, ordering: .releasing)
    }

    public func stop() { started.store(false, ordering: .releasing) }

    /// Renders `frameCount` frames from `input` (one pointer per input channel) into
    /// `output` (one per output channel).
    public func render(input: [UnsafeMutablePointer<Float>], output: [UnsafeMutablePointer<Float>], frameCount: Int) throws(CommandError) {
        guard started.load(ordering: .acquiring) else { throw CommandError("the chain is not running") }
        let grid = Int64(max(1, prepared.maximumFrames))
        var offset = 0
        var floatState = AudioThread.enter()
        defer { AudioThread.leave(restoring: floatState) }
        while offset < frameCount {
            let frames = min(frameCount - offset, Int(grid - position.pointee % grid))
            for channel in 0..<inputChannels { inputTable[channel] = input[channel] + offset }
            for channel in 0..<outputChannels { outputTable[channel] = output[channel] + offset }
            var cycle = BackendCycle(
                frameCount: frames, timeStamp: AudioTimeStamp(sampleTime: position.pointee, hostTime: HostClock.now()),
                input: inputChannels > 0 ? AudioBuffers(channelPointers: UnsafePointer(inputTable), channelCount: inputChannels) : .empty,
                output: AudioBuffers(channelPointers: UnsafePointer(outputTable), channelCount: outputChannels))
            let status = withUnsafeMutablePointer(to: &cycle) { cycle in
                entry.map { $0.render(cycle) } ?? source.render(
                    frameCount: frames, timeStamp: cycle.pointee.timeStamp, input: cycle.pointee.input, output: cycle.pointee.output)
            }
            guard status == .ok else { throw CommandError("rendering failed: \(status)") }
            offset += frames
            position.pointee += Int64(frames)
            AudioThread.leave(restoring: floatState)
            defer { floatState = AudioThread.enter() }
            do { try betweenSlices() } catch { throw CommandError("\(error)") }
        }
    }
}
