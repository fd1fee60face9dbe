/// What a unit that changes time asks of the source feeding it: play `rate` times as
/// fast, `cents` higher, keeping the pitch (time-pitch) or not (varispeed).
public struct RateRequest: Sendable, Equatable {
    public var rate: Double
    public var cents: Double
    public var keepsPitch: Bool
    public var preservesFormants: Bool

    public init(rate: Double, cents: Double, keepsPitch: Bool, preservesFormants: Bool = false) {
        self.rate = rate
        self.cents = cents
        self.keepsPitch = keepsPitch
        self.preservesFormants = preservesFormants
    }
}

/// A source that can be read faster or slower than real time (a file player), so a
/// time-changing unit fed by it hands it its rate. Thread: control.
public protocol RateSource: AnyObject {
    /// Plays as `request` asks, on top of the source's own rate; nil ends the request.
    func follow(_ request: RateRequest?)
}

/// A unit that changes time (time-pitch, varispeed). In a pull graph it reads its input
/// faster or slower than it plays; Trellis' graph runs every node a cycle at a time, so
/// the rate goes to the source instead: the compiler links the unit to a `RateSource`
/// feeding it directly, and the unit passes audio through. Unlinked, the unit may only
/// change pitch (a live stream cannot be read faster than it arrives).
public protocol RateFollowing: AnyObject {
    /// The source feeding input 0 directly, or nil; throws when the unit's settings need
    /// a source and it has none. Thread: control (the graph compiler).
    func link(to source: (any RateSource)?) throws(AudioUnitError)
}
