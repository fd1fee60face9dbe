import TrellisCore

/// A session's `transport:` section: the tempo and meter the transport starts at,
/// whether it rolls when the session starts live (a render always rolls), where it
/// starts, and the frame rate SMPTE positions are read at.
///
///     transport:
///       tempo: 120
///       meter: 4/4
///       rolling: true
///       start: 1|1|0
///       smpte: 25
///       source: internal      # or jack (follow JACK transport), jack-master (and be its timebase master)
public struct TransportSpec: Sendable, Equatable {
    /// Whose transport the session runs by live.
    public enum Source: String, Sendable, CaseIterable {
        case `internal`
        case jack
        case jackMaster = "jack-master"
    }

    public var tempo: Double?
    public var meter: (beatsPerBar: Int, beatUnit: Int)?
    public var rolling: Bool?
    public var start: TransportTime?
    public var smpte: SMPTERate?
    public var source: Source?

    public init() {}

    public static let keys = ["tempo", "meter", "rolling", "start", "smpte", "source"]
    public static let tempoRange = 1.0...999.0

    public static func == (lhs: TransportSpec, rhs: TransportSpec) -> Bool {
        lhs.tempo == rhs.tempo && lhs.meter?.beatsPerBar == rhs.meter?.beatsPerBar && lhs.meter?.beatUnit == rhs.meter?.beatUnit
            && lhs.rolling == rhs.rolling && lhs.start == rhs.start && lhs.smpte == rhs.smpte && lhs.source == rhs.source
    }

    /// `4/4`, `6/8`: beats in a bar (1 to 64) over a beat's note value (1, 2, 4, 8, 16, 32).
    public static func meter(_ text: String) -> (beatsPerBar: Int, beatUnit: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let beats = Int(parts[0]), let unit = Int(parts[1]),
              (1...64).contains(beats), [1, 2, 4, 8, 16, 32].contains(unit) else { return nil }
        return (beats, unit)
    }

    /// The clock this section starts: at `rate`, rolling when `rolling` (or the
    /// section) says so; nil when the start is a position the tempo cannot place.
    public func clock(sampleRate: Double, rolling forced: Bool? = nil) -> TransportClock? {
        var clock = TransportClock(
            sampleRate: sampleRate, tempo: tempo ?? 120, beatsPerBar: Double(meter?.beatsPerBar ?? 4),
            beatUnit: Int32(meter?.beatUnit ?? 4), isRolling: forced ?? rolling ?? false)
        if let start {
            guard let frame = start.frame(on: clock.time, smpte: smpte ?? .fps25) else { return nil }
            clock.locate(frame: frame)
        }
        return clock
    }

    /// The changes that bring a running transport to this section's settings.
    public func commands(sampleRate: Double, rolling forced: Bool? = nil) -> [TransportCommand] {
        guard let clock = clock(sampleRate: sampleRate, rolling: forced) else { return [] }
        return [.tempo(clock.time.tempo), .meter(beatsPerBar: clock.time.beatsPerBar, beatUnit: clock.time.beatUnit),
                .locate(frame: clock.time.transportFrame), clock.time.isRolling ? .play : .stop]
    }
}
