/// A backend that runs live, as the control side sees it: its state and load, the
/// notifications it posts, the time its next cycle starts, and the transport it shares
/// with other programs when it has one. `JACKHeadNode` adopts it; the control server
/// speaks only to this, so another live backend needs no change there.
public protocol LiveBackend: AnyObject, Sendable {
    /// A snapshot; reading it closes the window of the mean load and the peak meters,
    /// unless `peek` leaves them to the next read. Thread: control.
    func liveStatus(peek: Bool) -> LiveBackendStatus
    /// The graph sample time the next cycle starts at. Thread: any.
    var nextCycleSampleTime: Int64 { get }
    /// The audio channels the backend gives the graph and takes from it.
    var channelCounts: (inputs: Int, outputs: Int) { get }
    /// Moves the transport the backend shares with other programs, when it follows one.
    /// False when it has none or could not; the caller then moves only its own.
    /// Thread: control.
    func moveSharedTransport(_ command: TransportCommand) -> Bool
    /// Adds a listener for the backend's notifications; it runs on a thread of the
    /// backend's own, never the audio thread. Returns a token for `removeLiveListener`.
    /// Thread: any.
    func addLiveListener(_ listener: @escaping @Sendable (LiveBackendEvent) -> Void) -> Int
    /// Thread: any.
    func removeLiveListener(_ token: Int)
    /// The backend's ports others connect to; nil for one without such ports.
    var portConnections: (any PortConnecting)? { get }
}

/// A live backend's state, for status lines. Thread: any (a plain value).
public struct LiveBackendStatus: Sendable {
    /// running, stopped or interrupted.
    public var phase: String
    /// The name the backend is known by to other programs (JACK's client name).
    public var clientName: String
    public var sampleRate: Double
    /// The frames of one cycle.
    public var period: Int
    public var xrunCount: Int
    public var cycleCount: Int
    /// Cycles whose output was replaced by silence.
    public var silencedCycleCount: Int
    public var interruptionCount: Int
    /// Time in cycles over the periods' time, as a mean over the window.
    public var dspLoad: Float
    /// Time spent in cycles and the periods' time since the start, in ns.
    public var busyNanoseconds: Int
    public var periodNanoseconds: Int
    /// Each output channel's peak over the window, in dBFS.
    public var outputPeaksDecibels: [Float]
    /// One word for whether idle CPUs are kept responsive: not-asked, released, held,
    /// cycles or refused; and why, when refused.
    public var cpuLatency: String
    public var cpuLatencyRefusal: String?

    public init(
        phase: String, clientName: String, sampleRate: Double, period: Int, xrunCount: Int, cycleCount: Int,
        silencedCycleCount: Int, interruptionCount: Int, dspLoad: Float, busyNanoseconds: Int, periodNanoseconds: Int,
        outputPeaksDecibels: [Float], cpuLatency: String, cpuLatencyRefusal: String?
    ) {
        self.phase = phase
        self.clientName = clientName
        self.sampleRate = sampleRate
        self.period = period
        self.xrunCount = xrunCount
        self.cycleCount = cycleCount
        self.silencedCycleCount = silencedCycleCount
        self.interruptionCount = interruptionCount
        self.dspLoad = dspLoad
        self.busyNanoseconds = busyNanoseconds
        self.periodNanoseconds = periodNanoseconds
        self.outputPeaksDecibels = outputPeaksDecibels
        self.cpuLatency = cpuLatency
        self.cpuLatencyRefusal = cpuLatencyRefusal
    }
}

/// A live backend's notification, in terms every backend shares.
public enum LiveBackendEvent: Sendable, Equatable, CustomStringConvertible {
    /// A missed deadline; `total` counts every one since the start.
    case xrun(total: Int)
    /// The server went away; the backend waits for it.
    case interruptionBegan(reason: String)
    case interruptionEnded
    /// One of our ports (full name) was connected to or disconnected from `peer`.
    case route(port: String, peer: String, connected: Bool)
    /// MIDI lost in one cycle on one of our ports (full name); `message` says how.
    case midiDropped(port: String, output: Bool, count: Int, message: String)
    /// Anything else, in words.
    case other(String)

    public var description: String {
        switch self {
        case .xrun(let total): "xrun (\(total) so far)"
        case .interruptionBegan(let reason): "interruption began: \(reason)"
        case .interruptionEnded: "interruption ended"
        case .route(let port, let peer, let connected): "route change: \(port) \(connected ? "connected to" : "disconnected from") \(peer)"
        case .midiDropped(_, _, _, let message): message
        case .other(let text): text
        }
    }
}
