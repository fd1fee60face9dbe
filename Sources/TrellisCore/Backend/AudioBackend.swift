/// The stream a backend runs its render source at.
public struct BackendSettings: Sendable, Hashable {
    /// The most frames one cycle asks for: JACK's period, an offline render's slice.
    public var maximumFrames: Int
    public var sampleRate: Double

    public init(maximumFrames: Int, sampleRate: Double) {
        self.maximumFrames = maximumFrames
        self.sampleRate = sampleRate
    }
}

/// Readies a render source for a backend's settings. A backend calls it before its
/// first cycle and whenever its settings change: on the control thread or the
/// backend's notification thread, never on the audio thread, never twice at once.
public typealias BackendPrepare = @Sendable (BackendSettings) throws -> Void

/// What drives a render source: it decides when each cycle runs and how many frames it
/// has, hands the source the cycle's input (a `BackendCycle`, through the source's
/// `renderEntry`) and takes its output, and readies the source through the prepare
/// hook it was made with. Trellis has two: `JACKHeadNode` (live: JACK's process
/// callback, JACK's period) and `OfflineBackend` (from files to a file, as fast as the
/// machine allows). `GraphDriver` runs a graph on either.
public protocol AudioBackend: AnyObject, Sendable {
    associatedtype Failure: Error

    /// Prepares the source and starts the cycles. A live backend returns once they run
    /// on its own thread; an offline one runs them on the caller's and returns when its
    /// work is done. Thread: control.
    func start() throws(Failure)

    /// Ends the cycles: none runs once it returns. Thread: control.
    func stop()

    /// What the source was last prepared for; nil before the first time. Thread: any.
    var settings: BackendSettings? { get }
}
