import Glibc

/// Something a backend (the JACK head node, the offline renderer) pulls each cycle:
/// a compiled graph, or anything else that turns input frames into output frames.
public protocol RenderSource: AnyObject, Sendable {
    /// Renders `frameCount` frames. `input` holds what the backend captured (the head
    /// node's input element) and `output` receives the result; both are non-interleaved
    /// float. On anything but `.ok` the backend outputs silence. Thread: audio.
    func render(frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers) -> RenderStatus
    /// The entry a backend's audio thread calls instead of `render`, with no reference
    /// to the source; nil for a source that has none (the backend then bridges to
    /// `render`). Valid while the source lives. Thread: control.
    var renderEntry: RenderEntry? { get }
    /// Frames from the input to the output of what the source renders now, for a backend
    /// to publish (JACK's port latency ranges). Thread: any.
    var latencyFrames: Int { get }
    /// Starts the source's render workers again with `starter`, if it runs any; the
    /// starter is not kept. Thread: control, while no cycle runs.
    func restartWorkers(with starter: @escaping WorkerThreadStarter)
    /// Whether the source may share live cycles with its workers: not when they would run
    /// without real-time priority beside a live server (a worker preempted mid-task
    /// stalls the cycle). A schedule asked for always still runs. Thread: control, while
    /// no cycle runs.
    func allowParallelCycles(_ allowed: Bool)
}

extension RenderSource {
    public var renderEntry: RenderEntry? { nil }
    public var latencyFrames: Int { 0 }
    public func restartWorkers(with starter: @escaping WorkerThreadStarter) {}
    public func allowParallelCycles(_ allowed: Bool) {}
}

/// One backend cycle as a render entry receives it.
public struct BackendCycle: BitwiseCopyable, @unchecked Sendable {
    public var frameCount: Int
    public var timeStamp: AudioTimeStamp
    public var input: AudioBuffers
    public var output: AudioBuffers
    /// The backend's MIDI input ports' events of this cycle, ordered by frame.
    public var midiInput: MIDIInputView?
    /// The backend's MIDI output ports, emptied by the backend before the call.
    public var midiOutput: MIDIBuses
    /// The server's transport, when the engine is to follow it (JACK's).
    public var transport: ExternalTransport? = nil
    /// Where the engine leaves its clock for the cycle, for a backend that announces it
    /// (JACK's timebase master).
    public var clock: UnsafeMutablePointer<TimeContext>? = nil

    @inlinable
    public init(
        frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers,
        midiInput: MIDIInputView? = nil, midiOutput: MIDIBuses = .none, transport: ExternalTransport? = nil,
        clock: UnsafeMutablePointer<TimeContext>? = nil
    ) {
        self.transport = transport
        self.clock = clock
        self.frameCount = frameCount
        self.timeStamp = timeStamp
        self.input = input
        self.output = output
        self.midiInput = midiInput
        self.midiOutput = midiOutput
    }
}

/// The transport a backend's server keeps for all its clients (JACK transport), as one
/// cycle's start sees it. Thread: audio (a plain value).
public struct ExternalTransport: BitwiseCopyable, Sendable {
    public var isRolling: Bool
    public var frame: Int64
    /// Whether a timebase master gives bars and beats; without one, the engine keeps
    /// its own tempo and meter.
    public var hasBars: Bool
    /// Beats from transport zero, from the master's bar, beat and tick.
    public var beat: Double
    public var tempo: Double
    public var beatsPerBar: Double
    public var beatUnit: Int32

    @inlinable
    public init(isRolling: Bool, frame: Int64, hasBars: Bool = false, beat: Double = 0, tempo: Double = 120, beatsPerBar: Double = 4, beatUnit: Int32 = 4) {
        self.isRolling = isRolling
        self.frame = frame
        self.hasBars = hasBars
        self.beat = beat
        self.tempo = tempo
        self.beatsPerBar = beatsPerBar
        self.beatUnit = beatUnit
    }
}

/// A render source's entry, returning a `RenderStatus` raw value.
public typealias RenderEntryFunction = @convention(c) (_ state: UnsafeMutableRawPointer, _ cycle: UnsafeRawPointer) -> UInt8

/// What a backend's audio thread holds of its render source: plain state and a function.
public struct RenderEntry: BitwiseCopyable, @unchecked Sendable {
    public let state: UnsafeMutableRawPointer
    public let function: RenderEntryFunction

    public init(state: UnsafeMutableRawPointer, function: RenderEntryFunction) {
        self.state = state
        self.function = function
    }

    /// Thread: audio.
    @inlinable @inline(__always)
    public func render(_ cycle: UnsafePointer<BackendCycle>) -> RenderStatus {
        RenderStatus(rawValue: function(state, UnsafeRawPointer(cycle))) ?? .failed
    }
}

/// Starts a thread at `entry(context)` and returns it, or nil when it cannot: how a
/// backend gives an engine's render workers its own kind of thread (JACK's real-time
/// threads, at its client's priority). The caller joins it with `pthread_join`.
public typealias WorkerThreadStarter = @Sendable (
    _ entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer
) -> pthread_t?
